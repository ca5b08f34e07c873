package dev.studio.replica;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes this replica's heartbeat from a thread of its own, so a busy actor system or a saturated
 * JDBC dispatcher can never make a live replica look dead.
 */
final class Heartbeat implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Heartbeat.class);
  private final ScheduledExecutorService thread;
  private final ReplicaStore store;
  private final ReplicaStatus status;
  private final ReplicaMetrics metrics;
  private final java.time.Duration timeout;
  private boolean failing;
  /** Until the schema has the column (a build ahead of its schema), the heartbeat keeps trying. */
  private boolean lockKeyRecorded;

  Heartbeat(ReplicaStore store, ReplicaStatus status, ReplicaMetrics metrics, java.time.Duration interval) {
    this.store = store;
    this.status = status;
    this.metrics = metrics;
    this.timeout = interval;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "studio-heartbeat");
      t.setDaemon(true);
      t.setPriority(Thread.MAX_PRIORITY);
      return t;
    });
    long ms = interval.toMillis();
    thread.scheduleWithFixedDelay(this::beat, ms, ms, TimeUnit.MILLISECONDS);
  }

  private void beat() {
    try {
      if (!lockKeyRecorded) lockKeyRecorded = store.recordLockKey(status.id(), status.lockKey());
      store.heartbeat(status.id(), timeout);
      status.heartbeatWritten();
      if (failing) log.info("heartbeat written again");
      failing = false;
    } catch (Exception e) {
      metrics.heartbeatFailed();
      if (!failing) log.warn("heartbeat failed: {}", e.getMessage());
      failing = true;
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
