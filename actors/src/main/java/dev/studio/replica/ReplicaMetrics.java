package dev.studio.replica;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/** Replica state, heartbeat age and safe mode as Prometheus gauges. */
final class ReplicaMetrics {
  private final Counter heartbeatFailures;

  ReplicaMetrics(MeterRegistry registry, ReplicaStatus status) {
    for (ReplicaState s : ReplicaState.values()) {
      Gauge.builder("studio.replica.state", status, st -> st.state() == s ? 1 : 0)
          .tag("state", s.sql()).description("1 for this replica's current state").register(registry);
    }
    Gauge.builder("studio.replica.heartbeat.age", status, ReplicaStatus::heartbeatAgeSeconds)
        .baseUnit("seconds").description("time since this replica last wrote its heartbeat").register(registry);
    Gauge.builder("studio.replica.safe.mode", status, st -> st.safeMode() ? 1 : 0)
        .description("1 when the crash-loop guard started this replica in safe mode").register(registry);
    heartbeatFailures = Counter.builder("studio.replica.heartbeat.failures")
        .description("heartbeat writes that failed").register(registry);
  }

  void heartbeatFailed() {
    heartbeatFailures.increment();
  }
}
