package dev.studio.duty;

import dev.studio.broker.BrokerClient;
import dev.studio.bus.FramePublisher;
import dev.studio.cluster.Cluster;
import dev.studio.owner.FencedWriter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What the framework gives a duty: its cluster's settings, a broker client, a fenced writer (every
 * write succeeds only while this replica still holds the lease with the same token), the frame
 * publisher, the JDBC executor for blocking work, and a metrics registry.
 */
public record ClusterContext(Cluster cluster, long token, String replicaId, BrokerClient broker, FencedWriter writer,
    FramePublisher frames, Executor blocking, MeterRegistry metrics, Duration tierAInterval, Duration tierBInterval) {

  /** Publishes a stream frame (canonical JSON object) to every SSE client of {@code topic}. */
  public CompletableFuture<Long> publish(String topic, String json) {
    return frames.publish(topic, dev.studio.bus.BusCodec.canonicalObject(json));
  }
}
