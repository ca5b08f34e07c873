package dev.studio.owner;

import dev.studio.bus.FramePublisher;
import dev.studio.db.Database;
import dev.studio.duty.DutyRegistry;
import dev.studio.metrics.ActorMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * What every cluster owner on this replica shares. {@code jdbc} runs the lease passes; {@code
 * blocking} runs duties' work (broker calls), on threads of its own.
 */
public record OwnerDeps(Database db, FramePublisher frames, HttpClient http, String replicaId, Executor jdbc, Executor blocking,
    MeterRegistry registry, ActorMetrics actorMetrics, DutyRegistry duties, boolean safeMode, Duration tierAInterval,
    Duration tierBInterval, Duration brokerTimeout, int brokerConcurrency, Counter fencedRejections) {}
