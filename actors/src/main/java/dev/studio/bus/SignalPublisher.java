package dev.studio.bus;

import dev.studio.db.Database;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Coalesces signals sent outside a transaction: repeated signals between two flushes go out once,
 * all pending ones in a single notification round trip. For a signal that must go out only if a
 * change commits, use {@link Notify#signal} inside that change's transaction instead.
 */
public final class SignalPublisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SignalPublisher.class);
  private final Database db;
  private final BusMetrics metrics;
  private final Set<BusMessage.Signal> pending = new LinkedHashSet<>();
  private final Thread flusher;
  private boolean closed;

  public SignalPublisher(Database db, BusMetrics metrics) {
    this.db = db;
    this.metrics = metrics;
    this.flusher = new Thread(this::run, "studio-signal-flusher");
    flusher.setDaemon(true);
    flusher.start();
  }

  public synchronized void signal(String kind, String key) {
    if (pending.add(new BusMessage.Signal(kind, key))) notifyAll();
  }

  private void run() {
    while (true) {
      List<BusMessage.Signal> batch;
      synchronized (this) {
        while (pending.isEmpty() && !closed) {
          try {
            wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        if (pending.isEmpty()) return;
        batch = new ArrayList<>(pending);
        pending.clear();
      }
      try {
        List<String> prefixes = batch.stream().map(s -> BusCodec.signalPrefix(s.kind(), s.key())).toList();
        int sent = db.inTransaction(c -> Notify.send(c, prefixes));
        metrics.sent(sent, 0);
      } catch (Exception e) {
        log.warn("could not send {} signal(s): {}; they will be sent again", batch.size(), e.getMessage());
        synchronized (this) {
          pending.addAll(batch);
        }
        try {
          Thread.sleep(500); // back off while the database is away
        } catch (InterruptedException ie) {
          return;
        }
      }
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      notifyAll();
    }
    try {
      flusher.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
