package dev.studio;

import dev.studio.broker.BrokerClient;
import dev.studio.bus.Bus;
import dev.studio.bus.BusMetrics;
import dev.studio.bus.BusStatus;
import dev.studio.bus.FramePublisher;
import dev.studio.bus.FrameRetention;
import dev.studio.cluster.ClusterStore;
import dev.studio.cluster.ClusterViews;
import dev.studio.run.RunStore;
import dev.studio.run.Runs;
import dev.studio.db.Database;
import dev.studio.duty.DutyRegistry;
import dev.studio.lease.LeaseStore;
import dev.studio.lease.Ownership;
import dev.studio.metrics.Metrics;
import dev.studio.owner.OwnerDeps;
import dev.studio.replica.ReplicaRegistry;
import dev.studio.replica.ReplicaStatus;
import dev.studio.replica.ReplicaStore;
import dev.studio.settings.StudioSettings;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The root of Studio's actor tree: replica registry, bus, ownership (with a cluster owner per won
 * lease and its duties below it), runs and frame retention. Children are handed to the wiring code
 * through {@code started} because it needs their references (probes, drain tasks).
 */
public final class StudioGuardian {

  /** The guardian takes no messages of its own: its children are addressed directly. */
  public interface Command {}

  /** What the actors are built from; created once by the application's wiring. */
  public record Wiring(StudioSettings settings, Database db, ReplicaStore replicas, ReplicaStatus status,
      Metrics metrics, BusStatus busStatus, BusMetrics busMetrics, Bus.Subscribers subscribers,
      FramePublisher frames, DutyRegistry duties) {}

  public record Children(ActorRef<ReplicaRegistry.Command> registry, ActorRef<Ownership.Command> ownership,
      ActorRef<Runs.Command> runs) {}

  private StudioGuardian() {}

  public static Behavior<Command> create(Wiring w, CompletableFuture<Children> started) {
    return Behaviors.setup(ctx -> {
      StudioSettings s = w.settings();
      Metrics metrics = w.metrics();
      Executor jdbc = ctx.getSystem().dispatchers().lookup(DispatcherSelector.fromConfig(StudioSettings.DB_DISPATCHER));
      var registry = ctx.spawn(supervised(metrics, "replica-registry",
          ReplicaRegistry.create(w.replicas(), w.status(), s.replica(), metrics.registry())), "replica-registry");

      OwnerDeps deps = new OwnerDeps(w.db(), w.frames(), BrokerClient.newHttpClient(s.duties().brokerTimeout()),
          w.status().id(), jdbc,
          ctx.getSystem().dispatchers().lookup(DispatcherSelector.fromConfig(StudioSettings.DUTY_DISPATCHER)),
          metrics.registry(), metrics.actors(), w.duties(), w.status().safeMode(),
          s.duties().tierA(), s.duties().tierB(), s.duties().brokerTimeout(), s.duties().brokerConcurrency(),
          Counter.builder("studio.fenced.rejections").description("duty writes refused by the lease fence")
              .register(metrics.registry()));
      LeaseStore leases = new LeaseStore(w.db(), w.status().id(), s.lease().ttl(), s.replica().goneAfter());
      var ownership = ctx.spawn(supervised(metrics, "ownership", Ownership.create(leases, s.lease(), deps)), "ownership");
      w.subscribers().add(Ownership.busListener(ownership));

      ctx.spawn(supervised(metrics, "bus", Bus.create(w.db(), w.status().id(), w.status().lockKey(), s.bus(),
          w.busStatus(), w.busMetrics(), w.subscribers())), "bus");
      ctx.spawn(supervised(metrics, "frame-retention", FrameRetention.create(w.db(), s.stream())), "frame-retention");
      var runDeps = new Runs.Deps(new RunStore(w.db()), new ClusterStore(w.db()), new ClusterViews(w.db()), w.frames(),
          deps.http(), w.status().id(), jdbc, s.duties().brokerTimeout(), s.replica().goneAfter(), s.drain().recoveryInterval());
      var runs = ctx.spawn(supervised(metrics, "runs", Runs.create(runDeps, Runs.kinds(StudioGuardian.class.getClassLoader()))),
          "runs");
      started.complete(new Children(registry, ownership, runs));
      return metrics.actors().<Command>instrument("guardian", Behaviors.empty());
    });
  }

  /** Every child: instrumented inside, restarted with backoff outside. */
  private static <T> Behavior<T> supervised(Metrics metrics, String kind, Behavior<T> behavior) {
    return Behaviors.supervise(metrics.actors().instrument(kind, behavior))
        .onFailure(SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(10), 0.2));
  }
}
