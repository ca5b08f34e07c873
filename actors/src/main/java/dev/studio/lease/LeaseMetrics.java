package dev.studio.lease;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.function.Supplier;

/** {@code studio_leases_held} (summed over replicas it equals the number of clusters) and the rest. */
final class LeaseMetrics {
  final Counter acquisitions;
  final Counter releases;
  final Counter losses;
  final Timer pass;

  LeaseMetrics(MeterRegistry registry, Supplier<Number> held) {
    Gauge.builder("studio.leases.held", held).description("cluster leases held by this replica").register(registry);
    acquisitions = Counter.builder("studio.leases.acquisitions").register(registry);
    releases = Counter.builder("studio.leases.releases").register(registry);
    losses = Counter.builder("studio.leases.losses").description("leases lost without a release").register(registry);
    pass = Timer.builder("studio.leases.renewal.pass").description("one renewal pass: renew, place, acquire")
        .publishPercentiles(0.5, 0.99).register(registry);
  }
}
