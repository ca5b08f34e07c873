package dev.studio;

import dev.studio.bus.Bus;
import dev.studio.bus.BusMetrics;
import dev.studio.bus.BusStatus;
import dev.studio.bus.FrameRetention;
import dev.studio.db.Database;
import dev.studio.metrics.Metrics;
import dev.studio.replica.ReplicaRegistry;
import dev.studio.replica.ReplicaStatus;
import dev.studio.replica.ReplicaStore;
import dev.studio.settings.StudioSettings;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The root of Studio's actor tree: replica registry, bus and frame retention now; ownership and
 * runs arrive as children with their features. Children are handed to the wiring code through
 * {@code started} because it needs their references (probes, drain tasks).
 */
public final class StudioGuardian {

  /** The guardian takes no messages of its own: its children are addressed directly. */
  public interface Command {}

  public record Children(ActorRef<ReplicaRegistry.Command> registry) {}

  private StudioGuardian() {}

  public static Behavior<Command> create(StudioSettings settings, Database db, ReplicaStore store,
      ReplicaStatus status, Metrics metrics, BusStatus busStatus, BusMetrics busMetrics,
      Bus.Subscribers subscribers, CompletableFuture<Children> started) {
    return Behaviors.setup(ctx -> {
      ctx.spawn(supervised(metrics, "bus", Bus.create(db, status.id(), settings.bus(), busStatus, busMetrics,
          subscribers)), "bus");
      ctx.spawn(supervised(metrics, "frame-retention", FrameRetention.create(db, settings.stream())),
          "frame-retention");
      Behavior<ReplicaRegistry.Command> registry = supervised(metrics, "replica-registry",
          ReplicaRegistry.create(store, status, settings.replica(), metrics.registry()));
      started.complete(new Children(ctx.spawn(registry, "replica-registry")));
      return metrics.actors().<Command>instrument("guardian", Behaviors.empty());
    });
  }

  /** Every child: instrumented inside, restarted with backoff outside. */
  private static <T> Behavior<T> supervised(Metrics metrics, String kind, Behavior<T> behavior) {
    return Behaviors.supervise(metrics.actors().instrument(kind, behavior))
        .onFailure(SupervisorStrategy.restartWithBackoff(
            java.time.Duration.ofMillis(200), java.time.Duration.ofSeconds(10), 0.2));
  }
}
