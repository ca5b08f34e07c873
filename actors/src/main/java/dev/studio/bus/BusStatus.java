package dev.studio.bus;

import java.time.Duration;

/** The bus connection's health as readiness and metrics see it (written by the bus, read anywhere). */
public final class BusStatus {
  private volatile boolean connected;
  private volatile long downSinceNanos = System.nanoTime();
  private volatile long lastPingNanos = System.nanoTime();
  /** Database clock minus local clock, measured at connect, for the delivery-lag metric. */
  private volatile long clockOffsetMillis;

  public boolean connected() {
    return connected;
  }

  /** How long the bus has been down; zero while connected. */
  public Duration downFor() {
    return connected ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - downSinceNanos);
  }

  void up(long clockOffsetMillis) {
    this.clockOffsetMillis = clockOffsetMillis;
    lastPingNanos = System.nanoTime();
    connected = true;
  }

  void down() {
    if (connected) downSinceNanos = System.nanoTime();
    connected = false;
  }

  void pinged() {
    lastPingNanos = System.nanoTime();
  }

  Duration sinceLastPing() {
    return Duration.ofNanos(System.nanoTime() - lastPingNanos);
  }

  long databaseNowMillis() {
    return System.currentTimeMillis() + clockOffsetMillis;
  }
}
