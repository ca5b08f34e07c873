package dev.studio.bus;

import dev.studio.db.BatchWriter;
import dev.studio.db.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The sending half of streams: stores frames in {@code stream_frame} and notifies them, in one
 * transaction. Group commit ({@link BatchWriter}): under load many frames share a transaction and a
 * notification (batched, never delayed when idle).
 *
 * <p><b>Ids become visible in id order.</b> Each transaction takes {@link #ORDER_LOCK} before taking
 * ids, so no frame commits after a frame with a larger id — on any replica. Without it, replay's
 * {@code id > last} could skip a frame that committed late.
 */
public final class FramePublisher implements AutoCloseable {
  /** Transaction-scoped advisory lock that orders frame ids across every replica. */
  public static final long ORDER_LOCK = 0x5354_5544_494f_4631L;
  static final int MAX_BATCH = 500;

  private record Pending(String topic, String data) {}

  private final BusMetrics metrics;
  private final boolean ordered;
  private final BatchWriter<Pending, Long> writer;

  public FramePublisher(Database db, BusMetrics metrics) {
    this(db, metrics, true);
  }

  /** {@code ordered = false} exists only so a test can show what goes wrong without the lock. */
  FramePublisher(Database db, BusMetrics metrics, boolean ordered) {
    this.metrics = metrics;
    this.ordered = ordered;
    this.writer = new BatchWriter<>("frame", 50_000, MAX_BATCH, batch -> db.inTransaction(c -> write(c, batch)));
  }

  /**
   * Publishes a frame; completes with its id once committed (and so notified).
   *
   * @param data a JSON object in canonical form ({@link BusCodec#canonicalObject})
   */
  public CompletableFuture<Long> publish(String topic, String data) {
    return writer.submit(new Pending(topic, data));
  }

  private List<Long> write(Connection c, List<Pending> batch) throws SQLException {
    if (ordered) Database.lockForTransaction(c, ORDER_LOCK);
    List<BusMessage.Frame> stored = insert(c, batch);
    int notifies = Notify.send(c, BusCodec.framePrefixes(stored));
    metrics.sent(notifies, stored.size());
    return stored.stream().map(BusMessage.Frame::id).toList();
  }

  private static List<BusMessage.Frame> insert(Connection c, List<Pending> batch) throws SQLException {
    List<BusMessage.Frame> stored = new ArrayList<>(batch.size());
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO stream_frame (topic, data) SELECT * FROM unnest(?::text[], ?::json[]) RETURNING id")) {
      ps.setArray(1, c.createArrayOf("text", batch.stream().map(Pending::topic).toArray()));
      ps.setArray(2, c.createArrayOf("text", batch.stream().map(Pending::data).toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        int i = 0;
        while (rs.next()) {
          Pending p = batch.get(i++);
          stored.add(new BusMessage.Frame(p.topic(), rs.getLong(1), p.data()));
        }
      }
    }
    return stored;
  }

  @Override
  public void close() {
    writer.close();
  }
}
