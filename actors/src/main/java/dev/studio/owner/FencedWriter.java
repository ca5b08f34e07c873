package dev.studio.owner;

import dev.studio.bus.Notify;
import dev.studio.db.Database;
import io.micrometer.core.instrument.Counter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Every write a duty makes goes through here. Each transaction starts by locking this cluster's
 * lease row (FOR SHARE) on condition that it still names this replica, with this token, unexpired;
 * if it does not, nothing is written, the rejection is counted and the owner is stopped. The row
 * lock makes a concurrent takeover wait for the write to commit, so a write is never accepted after
 * another replica won the lease — a replica paused past its lease cannot overwrite its successor.
 */
public final class FencedWriter {
  /** Orders {@code broker_event} seqs like {@code stream_frame} ids: {@code after=} paging never skips. */
  public static final long EVENT_ORDER_LOCK = 0x5354_5544_494f_4556L;

  public record NodeRow(String node, String statusJson, boolean splitBrain, String verdict) {}

  public record EventRow(String kind, String payloadJson, Instant occurredAt) {}

  private final Database db;
  private final UUID clusterId;
  private final String replicaId;
  private final long token;
  private final Counter rejections;
  private volatile Runnable onFenced = () -> { };

  public FencedWriter(Database db, UUID clusterId, String replicaId, long token, Counter rejections) {
    this.db = db;
    this.clusterId = clusterId;
    this.replicaId = replicaId;
    this.token = token;
    this.rejections = rejections;
  }

  void onFenced(Runnable r) {
    this.onFenced = r;
  }

  public UUID clusterId() {
    return clusterId;
  }

  /** Runs {@code work} in a transaction guarded by the lease; false (and nothing written) if fenced out. */
  public boolean write(Database.Work<?> work) throws SQLException {
    boolean ok = db.inTransaction(c -> {
      if (!holds(c)) return false;
      work.run(c);
      return true;
    });
    if (!ok) {
      rejections.increment();
      onFenced.run();
    }
    return ok;
  }

  private boolean holds(Connection c) throws SQLException {
    return !Database.query(c, """
        SELECT 1 FROM cluster_lease
        WHERE cluster_id = ? AND replica_id = ? AND token = ? AND expires_at > now() FOR SHARE""",
        rs -> 1, clusterId, replicaId, token).isEmpty();
  }

  /** The last state written for this cluster and tier, by any owner (reads need no fence). */
  public java.util.Optional<String> lastState(String tier) throws SQLException {
    return db.queryOne("SELECT state::text FROM cluster_state WHERE cluster_id = ? AND tier = ?",
        rs -> rs.getString(1), clusterId, tier);
  }

  public boolean putState(String tier, String json) throws SQLException {
    return write(c -> Database.update(c, """
        INSERT INTO cluster_state (cluster_id, tier, state, token, scraped_at) VALUES (?, ?, ?::jsonb, ?, now())
        ON CONFLICT (cluster_id, tier) DO UPDATE SET state = excluded.state, token = excluded.token, scraped_at = now()""",
        clusterId, tier, json, token));
  }

  public boolean putNodes(List<NodeRow> nodes) throws SQLException {
    return write(c -> {
      for (NodeRow n : nodes) {
        Database.update(c, """
            INSERT INTO cluster_node (cluster_id, node, status, split_brain, verdict, updated_at)
            VALUES (?, ?, ?::jsonb, ?, ?, now())
            ON CONFLICT (cluster_id, node) DO UPDATE SET status = excluded.status, split_brain = excluded.split_brain,
              verdict = excluded.verdict, updated_at = now()""",
            clusterId, n.node(), n.statusJson(), n.splitBrain(), n.verdict());
      }
      return null;
    });
  }

  /** Appends broker events in seq order and announces them as one {@code events} batch on the bus. */
  public boolean appendEvents(List<EventRow> events) throws SQLException {
    if (events.isEmpty()) return true;
    return write(c -> {
      Database.lockForTransaction(c, EVENT_ORDER_LOCK);
      List<Long> seqs = new ArrayList<>();
      for (EventRow e : events) {
        seqs.add(Database.query(c, """
            INSERT INTO broker_event (cluster_id, kind, payload, occurred_at, recorded_by)
            VALUES (?, ?, ?::jsonb, ?, ?) RETURNING seq""", rs -> rs.getLong(1),
            clusterId, e.kind(), e.payloadJson(), Timestamp.from(e.occurredAt()), replicaId).get(0));
      }
      Notify.events(c, seqs);
      return null;
    });
  }
}
