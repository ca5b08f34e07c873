package dev.studio;

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
 * The root of Studio's actor tree. It spawns the replica registry now; the bus, ownership, runs
 * and drain arrive as children with their features. Children are handed to the wiring code through
 * {@code started} because it needs their references (probes, drain tasks).
 */
public final class StudioGuardian {

  /** The guardian takes no messages of its own: its children are addressed directly. */
  public interface Command {}

  public record Children(ActorRef<ReplicaRegistry.Command> registry) {}

  private StudioGuardian() {}

  public static Behavior<Command> create(StudioSettings settings, ReplicaStore store, ReplicaStatus status,
      Metrics metrics, CompletableFuture<Children> started) {
    return Behaviors.setup(ctx -> {
      Behavior<ReplicaRegistry.Command> registry = Behaviors.supervise(
              metrics.actors().instrument("replica-registry",
                  ReplicaRegistry.create(store, status, settings.replica(), metrics.registry())))
          .onFailure(SupervisorStrategy.restart());
      started.complete(new Children(ctx.spawn(registry, "replica-registry")));
      return metrics.actors().<Command>instrument("guardian", Behaviors.empty());
    });
  }
}
