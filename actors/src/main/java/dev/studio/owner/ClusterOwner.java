package dev.studio.owner;

import dev.studio.broker.BrokerClient;
import dev.studio.cluster.Cluster;
import dev.studio.duty.ClusterContext;
import dev.studio.duty.ClusterDuty;
import java.time.Duration;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Runs the duties of one cluster while this replica holds its lease: spawned when the lease is won,
 * stopped when it is lost or released (its duties stop with it). Each duty is supervised on its
 * own — restarted with backoff — so a failing duty never stops its siblings. A write rejected by
 * the fence stops the owner: the lease has moved on.
 */
public final class ClusterOwner {
  public sealed interface Command {}

  private record FencedOut() implements Command {}

  private ClusterOwner() {}

  public static Behavior<Command> create(Cluster cluster, long token, OwnerDeps deps) {
    return Behaviors.setup(ctx -> {
      FencedWriter writer = new FencedWriter(deps.db(), cluster.id(), deps.replicaId(), token, deps.fencedRejections());
      writer.onFenced(() -> ctx.getSelf().tell(new FencedOut()));
      BrokerClient broker = new BrokerClient(deps.http(), cluster, deps.replicaId(), deps.brokerTimeout(),
          deps.brokerConcurrency());
      ClusterContext context = new ClusterContext(cluster, token, deps.replicaId(), broker, writer, deps.frames(),
          deps.blocking(), deps.registry(), deps.tierAInterval(), deps.tierBInterval());
      for (ClusterDuty duty : deps.duties().forMode(deps.safeMode())) {
        @SuppressWarnings("unchecked")
        Behavior<Object> behavior = (Behavior<Object>) duty.create(context);
        ctx.spawn(Behaviors.supervise(deps.actorMetrics().instrument("duty-" + duty.name(), behavior))
                .onFailure(SupervisorStrategy.restartWithBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30), 0.2)),
            "duty-" + duty.name());
      }
      return Behaviors.receive(Command.class)
          .onSignal(org.apache.pekko.actor.typed.PostStop.class, s -> {
            broker.close(); // duties' in-flight blocking work makes no further broker calls
            return Behaviors.same();
          })
          .onMessage(FencedOut.class, f -> {
            ctx.getLog().warn("cluster {}: a write was fenced out (token {} no longer holds); stopping its owner",
                cluster.name(), token);
            return Behaviors.stopped();
          })
          .build();
    });
  }
}
