package dev.studio.stream;

import dev.studio.bus.BusMessage;
import dev.studio.db.Database;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/** Reads of {@code stream_frame}: replay for SSE clients and the history API. */
public final class FrameStore {
  private final Database db;

  public FrameStore(Database db) {
    this.db = db;
  }

  /** Where the stream stands: the newest frame id and the highest id pruned by retention. */
  public record Position(long maxId, long prunedThrough) {}

  public record StoredFrame(long id, String topic, String data, Instant createdAt) {}

  public Position position() throws SQLException {
    return db.queryOne("""
        SELECT coalesce((SELECT max(id) FROM stream_frame), 0),
               coalesce((SELECT pruned_through FROM stream_retention), 0)""",
        rs -> new Position(rs.getLong(1), rs.getLong(2))).orElseThrow();
  }

  /** Frames of these topics after {@code afterId}, in id order, at most {@code limit}. */
  public List<BusMessage.Frame> after(Set<String> topics, long afterId, int limit) throws SQLException {
    return db.withConnection(c -> Database.query(c,
        "SELECT id, topic, data::text FROM stream_frame WHERE topic = ANY(?) AND id > ? ORDER BY id LIMIT ?",
        rs -> new BusMessage.Frame(rs.getString(2), rs.getLong(1), rs.getString(3)),
        c.createArrayOf("text", topics.toArray()), afterId, limit));
  }

  public List<StoredFrame> history(String topic, long afterId, int limit) throws SQLException {
    return db.query(
        "SELECT id, topic, data::text, created_at FROM stream_frame WHERE topic = ? AND id > ? ORDER BY id LIMIT ?",
        rs -> new StoredFrame(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getTimestamp(4).toInstant()),
        topic, afterId, limit);
  }
}
