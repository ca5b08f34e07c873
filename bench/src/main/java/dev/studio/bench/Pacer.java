package dev.studio.bench;

import java.util.concurrent.locks.LockSupport;

/** Sends at a fixed rate: the i-th send is due at start + i × period; a late sender catches up. */
final class Pacer {
  private final long start = System.nanoTime();
  private final long periodNanos;

  Pacer(double perSecond) {
    this.periodNanos = (long) (1e9 / perSecond);
  }

  void awaitTurn(long i) {
    long due = start + i * periodNanos;
    long now;
    while ((now = System.nanoTime()) < due) LockSupport.parkNanos(Math.min(due - now, 200_000));
  }
}
