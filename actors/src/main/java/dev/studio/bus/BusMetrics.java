package dev.studio.bus;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/** Bus traffic: received by shape, malformed, notifies sent, frames per notify, connection, lag. */
public final class BusMetrics {
  private final Counter frames;
  private final Counter events;
  private final Counter signals;
  private final Counter malformed;
  private final Counter notifies;
  private final Counter reconnects;
  private final DistributionSummary framesPerNotify;
  private final Timer lag;

  public BusMetrics(MeterRegistry registry, BusStatus status) {
    frames = received(registry, "frame");
    events = received(registry, "events");
    signals = received(registry, "signal");
    malformed = Counter.builder("studio.bus.malformed").description("payloads of unknown or malformed shape")
        .register(registry);
    notifies = Counter.builder("studio.bus.notifies.sent").description("pg_notify calls sent by this replica")
        .register(registry);
    reconnects = Counter.builder("studio.bus.connects").description("LISTEN connections established")
        .register(registry);
    framesPerNotify = DistributionSummary.builder("studio.bus.frames.per.notify")
        .description("stream frames carried by one notification").register(registry);
    lag = Timer.builder("studio.bus.delivery.lag")
        .description("sender's commit (database clock) to receipt here").publishPercentiles(0.5, 0.99)
        .register(registry);
    Gauge.builder("studio.bus.connected", status, s -> s.connected() ? 1 : 0)
        .description("1 while the LISTEN connection is up").register(registry);
  }

  private static Counter received(MeterRegistry registry, String shape) {
    return Counter.builder("studio.bus.received").tag("shape", shape)
        .description("bus messages received by shape").register(registry);
  }

  void received(BusMessage m) {
    if (m instanceof BusMessage.Frames) {
      frames.increment();
    } else if (m instanceof BusMessage.Events) {
      events.increment();
    } else {
      signals.increment();
    }
  }

  void malformed() {
    malformed.increment();
  }

  void sent(int notifyCount, int frameCount) {
    notifies.increment(notifyCount);
    if (frameCount > 0 && notifyCount > 0) {
      for (int i = 0; i < notifyCount; i++) framesPerNotify.record((double) frameCount / notifyCount);
    }
  }

  void connected() {
    reconnects.increment();
  }

  void lag(long millis) {
    if (millis >= 0) lag.record(Duration.ofMillis(millis));
  }
}
