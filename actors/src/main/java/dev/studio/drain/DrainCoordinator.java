package dev.studio.drain;

import dev.studio.lease.Ownership;
import dev.studio.run.Runs;
import dev.studio.replica.ReplicaRegistry;
import dev.studio.replica.ReplicaState;
import dev.studio.replica.ReplicaStatus;
import dev.studio.settings.StudioSettings;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Studio's tasks in Pekko's CoordinatedShutdown, in DESIGN's order:
 *
 * <ol>
 *   <li>refuse ({@code before-service-unbind}): {@code /readyz} 503 at once, replica {@code
 *       draining}, every lease released (owners stopped first) with a signal so others take over at
 *       once, then {@code drain.lb-grace} for the load balancer to notice;
 *   <li>streams ({@code service-unbind}, {@code service-requests-done}): added by the HTTP layer,
 *       which owns the binding ({@link #addTask});
 *   <li>runs ({@code service-stop}): running bulk runs get {@code drain.run-grace} to finish, the rest
 *       are interrupted before their next item and recorded {@code interrupted} with their progress;
 *   <li>stopped ({@code before-actor-system-terminate}): the clean stop is recorded.
 * </ol>
 */
public final class DrainCoordinator {
  private static final Logger log = LoggerFactory.getLogger(DrainCoordinator.class);
  private final ActorSystem<?> system;
  private final CoordinatedShutdown shutdown;

  private DrainCoordinator(ActorSystem<?> system) {
    this.system = system;
    this.shutdown = CoordinatedShutdown.get(system);
  }

  public static DrainCoordinator install(ActorSystem<?> system, ReplicaStatus status,
      ActorRef<ReplicaRegistry.Command> registry, ActorRef<Ownership.Command> ownership, ActorRef<Runs.Command> runs,
      StudioSettings.Drain settings) {
    DrainCoordinator d = new DrainCoordinator(system);
    d.addTask(CoordinatedShutdown.PhaseBeforeServiceUnbind(), "studio-refuse", () -> {
      log.info("drain: refusing traffic (readiness 503)");
      status.refuseTraffic();
      // owners stop and leases are released before the others learn we are draining: they take
      // over only what we no longer run, so no cluster is ever worked on twice
      return AskPattern.<Ownership.Command, Done>ask(ownership, Ownership.ReleaseAll::new, Duration.ofSeconds(3),
              system.scheduler())
          .exceptionally(e -> {
            log.warn("drain: releasing leases did not finish ({}); they expire by TTL", e.getMessage());
            return Done.getInstance();
          })
          .thenCompose(done -> d.changeState(registry, ReplicaState.DRAINING))
          .thenApply(done -> {
            log.info("drain: leases released and state draining recorded; the others take over now");
            return done;
          })
          .thenCompose(done -> d.after(settings.lbGrace()));
    });
    d.addTask(CoordinatedShutdown.PhaseServiceStop(), "studio-runs", () -> {
      log.info("drain: bulk runs get {} ms to finish", settings.runGrace().toMillis());
      return AskPattern.<Runs.Command, Done>ask(runs, replyTo -> new Runs.Drain(settings.runGrace(), replyTo),
          settings.runGrace().plusSeconds(2), system.scheduler());
    });
    d.addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "studio-stopped", () -> {
      log.info("drain: recording a clean stop");
      return d.changeState(registry, ReplicaState.STOPPED);
    });
    return d;
  }

  /** Adds a task to a phase; the task's own failure is logged, never blocks the sequence. */
  public void addTask(String phase, String name, Supplier<CompletionStage<Done>> task) {
    shutdown.addTask(phase, name, () -> task.get().exceptionally(e -> {
      log.warn("drain task {} failed: {}", name, e.getMessage());
      return Done.getInstance();
    }));
  }

  private CompletionStage<Done> changeState(ActorRef<ReplicaRegistry.Command> registry, ReplicaState state) {
    return AskPattern.ask(registry, (ActorRef<Done> replyTo) -> new ReplicaRegistry.ChangeState(state, replyTo),
        Duration.ofSeconds(4), system.scheduler());
  }

  private CompletionStage<Done> after(Duration delay) {
    if (delay.isZero() || delay.isNegative()) return CompletableFuture.completedFuture(Done.getInstance());
    CompletableFuture<Done> f = new CompletableFuture<>();
    return f.completeOnTimeout(Done.getInstance(), delay.toMillis(), TimeUnit.MILLISECONDS);
  }
}
