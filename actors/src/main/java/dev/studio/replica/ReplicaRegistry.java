package dev.studio.replica;

import dev.studio.settings.StudioSettings;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * This replica's row in {@code studio_replica}: heartbeats it (on a thread of its own) and moves it
 * through {@code starting → ready → draining → stopped}. The row was inserted at startup, before
 * the actor system, because the crash-loop guard must decide safe mode before anything starts.
 */
public final class ReplicaRegistry extends AbstractBehavior<ReplicaRegistry.Command> {

  public sealed interface Command {}

  /** Moves this replica to {@code state}; replies once the database has it (or it gave up). */
  public record ChangeState(ReplicaState state, ActorRef<Done> replyTo) implements Command {}

  private record StateWritten(ReplicaState state, ActorRef<Done> replyTo, Throwable failure)
      implements Command {}

  public static Behavior<Command> create(ReplicaStore store, ReplicaStatus status,
      StudioSettings.Replica settings, MeterRegistry registry) {
    return Behaviors.setup(ctx -> new ReplicaRegistry(ctx, store, status, settings, registry));
  }

  private static final java.time.Duration RETRY = java.time.Duration.ofSeconds(1);
  private final ReplicaStore store;
  private final ReplicaStatus status;
  private final Heartbeat heartbeat;
  private final Executor jdbc;

  private ReplicaRegistry(ActorContext<Command> ctx, ReplicaStore store, ReplicaStatus status,
      StudioSettings.Replica settings, MeterRegistry registry) {
    super(ctx);
    this.store = store;
    this.status = status;
    this.jdbc = ctx.getSystem().dispatchers().lookup(DispatcherSelector.fromConfig(StudioSettings.DB_DISPATCHER));
    this.heartbeat = new Heartbeat(store, status, new ReplicaMetrics(registry, status), settings.heartbeatInterval());
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(ChangeState.class, this::onChangeState)
        .onMessage(StateWritten.class, this::onStateWritten)
        .onSignal(PostStop.class, s -> {
          heartbeat.close();
          return this;
        })
        .onSignal(org.apache.pekko.actor.typed.PreRestart.class, s -> {
          heartbeat.close(); // the restarted instance starts its own
          return this;
        })
        .build();
  }

  private Behavior<Command> onChangeState(ChangeState cmd) {
    // Refusing traffic must not wait for the database: draining and stopped take effect in memory at once.
    if (cmd.state() != ReplicaState.READY) status.state(cmd.state());
    getContext().pipeToSelf(
        CompletableFuture.runAsync(() -> {
          try {
            store.setState(status.id(), cmd.state());
          } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
          }
        }, jdbc),
        (ok, failure) -> new StateWritten(cmd.state(), cmd.replyTo(), failure));
    return this;
  }

  private Behavior<Command> onStateWritten(StateWritten written) {
    if (written.failure() != null) {
      getContext().getLog().warn("could not record state {}: {}", written.state().sql(),
          written.failure().getMessage());
      if (written.state() == ReplicaState.READY && status.state() == ReplicaState.STARTING) {
        // not ready until the others can see it: try again rather than serve unseen
        getContext().scheduleOnce(RETRY, getContext().getSelf(), new ChangeState(ReplicaState.READY, written.replyTo()));
        return this;
      }
    } else {
      getContext().getLog().info("replica {} is {}", status.id(), written.state().sql());
      // Ready only once others can see it: the lease placement reads the ready set from the database.
      if (written.state() == ReplicaState.READY && status.state() == ReplicaState.STARTING) {
        status.state(ReplicaState.READY);
      }
    }
    written.replyTo().tell(Done.getInstance());
    return this;
  }
}
