package dev.studio.stream;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Supplier;

/** SSE clients, replays, resyncs, slow-client disconnects, frames delivered. */
final class StreamMetrics {
  final Counter replays;
  final Counter resyncs;
  final Counter slowDisconnects;
  final Counter delivered;

  StreamMetrics(MeterRegistry registry, Supplier<Number> clients) {
    Gauge.builder("studio.sse.clients", clients).description("open SSE streams on this replica").register(registry);
    replays = Counter.builder("studio.sse.replays").description("streams that replayed missed frames").register(registry);
    resyncs = Counter.builder("studio.sse.resyncs").description("resync events sent").register(registry);
    slowDisconnects = Counter.builder("studio.sse.slow.disconnects")
        .description("clients disconnected for falling behind").register(registry);
    delivered = Counter.builder("studio.sse.frames.delivered").description("frames handed to SSE clients")
        .register(registry);
  }
}
