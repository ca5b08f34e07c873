package dev.studio.bus;

import dev.studio.db.Database;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read loop of the LISTEN connection, on a thread of its own.
 *
 * <p>It blocks in {@code getNotifications(0)}: pgjdbc waits on the socket with no timeout, and with
 * {@link PushReads} it returns as soon as one notification is parsed, together with any already
 * buffered behind it. (A positive timeout re-arms the socket timeout around every read and polls.)
 * Liveness is proved separately by the bus's self-ping, and the loop is ended by aborting the
 * connection.
 */
final class BusReader implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(BusReader.class);

  private final Connection connection;
  private final String pingChannel;
  private final List<BusSubscriber> subscribers;
  private final BusStatus status;
  private final BusMetrics metrics;
  private final Database db;
  private final Consumer<Throwable> onStop;

  BusReader(Connection connection, String pingChannel, List<BusSubscriber> subscribers, BusStatus status,
      BusMetrics metrics, Database db, Consumer<Throwable> onStop) {
    this.connection = connection;
    this.pingChannel = pingChannel;
    this.subscribers = subscribers;
    this.status = status;
    this.metrics = metrics;
    this.db = db;
    this.onStop = onStop;
  }

  @Override
  public void run() {
    Throwable failure = null;
    try {
      PGConnection pg = connection.unwrap(PGConnection.class);
      while (!Thread.currentThread().isInterrupted()) {
        PGNotification[] batch = pg.getNotifications(0);
        if (batch == null) continue;
        for (PGNotification n : batch) {
          if (n.getName().equals(pingChannel)) {
            status.pinged();
          } else {
            handle(n.getParameter());
          }
        }
      }
    } catch (Throwable t) {
      failure = t;
    } finally {
      onStop.accept(failure);
    }
  }

  private void handle(String payload) {
    var decoded = BusCodec.decode(payload);
    if (decoded.isEmpty()) {
      metrics.malformed();
      log.warn("ignored a bus payload of unknown shape: {}", abbreviate(payload));
      return;
    }
    BusMessage message = decoded.get().message();
    metrics.received(message);
    if (decoded.get().sentAtMillis() > 0) metrics.lag(status.databaseNowMillis() - decoded.get().sentAtMillis());
    if (message instanceof BusMessage.Frames frames) {
      message = complete(frames);
      if (message == null) {
        // a frame that could not be loaded: the stream would have a hole, so clients resync instead
        for (BusSubscriber s : subscribers) s.onReconnect();
        return;
      }
    }
    for (BusSubscriber s : subscribers) {
      try {
        s.onMessage(message);
      } catch (RuntimeException e) {
        log.warn("bus subscriber {} failed: {}", s, e.toString());
      }
    }
  }

  /** Loads the data of frames too large to travel in a notification; null if that failed. */
  private BusMessage.Frames complete(BusMessage.Frames frames) {
    List<Long> missing = new ArrayList<>();
    for (BusMessage.Frame f : frames.frames()) if (f.data() == null) missing.add(f.id());
    if (missing.isEmpty()) return frames;
    try {
      Map<Long, String> loaded = new HashMap<>();
      db.withTimeout(java.time.Duration.ofSeconds(5), c -> Database.query(c,
          "SELECT id, data::text FROM stream_frame WHERE id = ANY(?)",
          rs -> loaded.put(rs.getLong(1), rs.getString(2)), c.createArrayOf("bigint", missing.toArray())));
      List<BusMessage.Frame> whole = new ArrayList<>();
      for (BusMessage.Frame f : frames.frames()) {
        String data = f.data() != null ? f.data() : loaded.get(f.id());
        if (data == null) return null;
        whole.add(f.withData(data));
      }
      return new BusMessage.Frames(List.copyOf(whole));
    } catch (SQLException e) {
      log.warn("could not load {} large frame(s): {}", missing.size(), e.getMessage());
      return null;
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "…";
  }
}
