package dev.studio.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.studio.db.Database;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Reads of what the owners wrote: scraped state, node verdicts, broker events. Any replica serves them. */
public final class ClusterViews {
  private static final ObjectMapper JSON = new ObjectMapper();

  public record TierState(String tier, JsonNode state, long token, Instant scrapedAt) {}

  public record NodeView(String node, JsonNode status, boolean splitBrain, String verdict, Instant updatedAt) {}

  public record EventView(long seq, UUID clusterId, String kind, JsonNode payload, Instant occurredAt,
      Instant recordedAt, String recordedBy) {}

  private final Database db;

  public ClusterViews(Database db) {
    this.db = db;
  }

  public List<TierState> states(UUID cluster) throws SQLException {
    return db.query("SELECT tier, state::text, token, scraped_at FROM cluster_state WHERE cluster_id = ? ORDER BY tier",
        rs -> new TierState(rs.getString(1), parse(rs.getString(2)), rs.getLong(3), rs.getTimestamp(4).toInstant()),
        cluster);
  }

  public List<NodeView> nodes(UUID cluster) throws SQLException {
    return db.query("""
        SELECT node, status::text, split_brain, verdict, updated_at FROM cluster_node
        WHERE cluster_id = ? ORDER BY node""",
        rs -> new NodeView(rs.getString(1), parse(rs.getString(2)), rs.getBoolean(3), rs.getString(4),
            rs.getTimestamp(5).toInstant()), cluster);
  }

  /** Whether any node of the cluster reports a partition (guards of bulk runs read this). */
  public boolean splitBrain(UUID cluster) throws SQLException {
    return db.queryOne("SELECT coalesce(bool_or(split_brain), false) FROM cluster_node WHERE cluster_id = ?",
        rs -> rs.getBoolean(1), cluster).orElse(false);
  }

  /** Events after {@code afterSeq}, in seq order; seqs become visible in order (writers take an ordering lock). */
  public List<EventView> events(UUID cluster, long afterSeq, int limit) throws SQLException {
    String sql = "SELECT seq, cluster_id, kind, payload::text, occurred_at, recorded_at, recorded_by FROM broker_event"
        + " WHERE seq > ?" + (cluster == null ? "" : " AND cluster_id = ?") + " ORDER BY seq LIMIT ?";
    Object[] params = cluster == null ? new Object[] {afterSeq, limit} : new Object[] {afterSeq, cluster, limit};
    return db.query(sql, rs -> new EventView(rs.getLong(1), rs.getObject(2, UUID.class), rs.getString(3),
        parse(rs.getString(4)), rs.getTimestamp(5).toInstant(), rs.getTimestamp(6).toInstant(), rs.getString(7)), params);
  }

  private static JsonNode parse(String json) throws SQLException {
    try {
      return JSON.readTree(json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new SQLException("stored JSON is unreadable", e);
    }
  }
}
