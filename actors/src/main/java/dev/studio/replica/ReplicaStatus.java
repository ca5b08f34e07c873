package dev.studio.replica;

import java.util.concurrent.atomic.AtomicLong;

/**
 * This replica's state as the probes see it: kept in memory so that {@code /livez} and the first
 * readiness checks never wait on the database.
 */
public final class ReplicaStatus {
  private final String id;
  private final boolean safeMode;
  /** Key of the session advisory lock this replica holds on its LISTEN connection while alive. */
  private final long lockKey = new java.security.SecureRandom().nextLong();
  private volatile ReplicaState state = ReplicaState.STARTING;
  private final AtomicLong lastHeartbeatNanos = new AtomicLong(System.nanoTime());

  public ReplicaStatus(String id, boolean safeMode) {
    this.id = id;
    this.safeMode = safeMode;
  }

  public String id() {
    return id;
  }

  /** Set by the crash-loop guard at startup: extension duties are not started. */
  public boolean safeMode() {
    return safeMode;
  }

  public long lockKey() {
    return lockKey;
  }

  public ReplicaState state() {
    return state;
  }

  /** Drain, first step: readiness answers 503 from now on; the database learns it a moment later. */
  public void refuseTraffic() {
    if (state != ReplicaState.STOPPED) state = ReplicaState.DRAINING;
  }

  void state(ReplicaState next) {
    state = next;
  }

  void heartbeatWritten() {
    lastHeartbeatNanos.set(System.nanoTime());
  }

  /** Seconds since the last heartbeat this replica managed to write (monotonic clock). */
  public double heartbeatAgeSeconds() {
    return (System.nanoTime() - lastHeartbeatNanos.get()) / 1e9;
  }
}
