package dev.studio.bench;

import java.util.Arrays;

/** Percentiles of a sample of latencies in nanoseconds, printed in milliseconds. */
final class Stats {
  private final long[] sorted;

  Stats(long[] nanos, int n) {
    sorted = Arrays.copyOf(nanos, n);
    Arrays.sort(sorted);
  }

  int count() {
    return sorted.length;
  }

  double pctMs(double p) {
    if (sorted.length == 0) return Double.NaN;
    int i = (int) Math.min(sorted.length - 1, Math.ceil(p / 100.0 * sorted.length) - 1);
    return sorted[Math.max(0, i)] / 1e6;
  }

  String summary() {
    return String.format("p50 %.2f ms  p99 %.2f ms  max %.2f ms  (n=%d)", pctMs(50), pctMs(99), pctMs(100), count());
  }
}
