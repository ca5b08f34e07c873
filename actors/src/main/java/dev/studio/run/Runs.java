package dev.studio.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.broker.BrokerClient;
import dev.studio.bus.FramePublisher;
import dev.studio.cluster.Cluster;
import dev.studio.cluster.ClusterStore;
import dev.studio.cluster.ClusterViews;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * Bulk runs started on this replica. A run executes here, on a thread of its own; its stop flag and
 * progress live in the database, so a stop works through any replica. On drain, running runs get
 * {@code drain.run-grace} to finish; the rest stop before their next item and are recorded
 * {@code interrupted} with their progress. Every replica also recovers orphans: runs of gone
 * replicas are recorded {@code interrupted} (a live replica's runs are never touched).
 */
public final class Runs extends AbstractBehavior<Runs.Command> {

  public sealed interface Command {}

  /** Starts a run; the reply is the stored run, or the reason it was refused. */
  public record Start(String kind, UUID clusterId, JsonNode params, ActorRef<Started> replyTo) implements Command {}

  public record Started(RunView run, Refusal refusal) {}

  /** Why a run was not started, with the HTTP status that says whose fault it is. */
  public record Refusal(int status, String title, String detail) {}

  /** Drain: no new runs; wait the grace for running ones, then interrupt them; reply when all ended. */
  public record Drain(Duration grace, ActorRef<Done> replyTo) implements Command {}

  private record Created(RunView run, RunKind kind, Cluster cluster, ActorRef<Started> replyTo, Refusal refusal,
      Throwable failure) implements Command {}

  private record Finished(UUID id) implements Command {}

  private record GraceOver() implements Command {}

  private record Recover() implements Command {}

  private record Recovered(int count, Throwable failure) implements Command {}

  public record Deps(RunStore store, ClusterStore clusters, ClusterViews views, FramePublisher frames, HttpClient http,
      String replicaId, Executor jdbc, Duration brokerTimeout, Duration goneAfter, Duration recoveryInterval) {}

  public static Map<String, RunKind> kinds(ClassLoader loader) {
    Map<String, RunKind> out = new LinkedHashMap<>();
    for (RunKind k : List.of(QueueRun.purge(), QueueRun.delete())) out.put(k.name(), k);
    for (RunKind k : ServiceLoader.load(RunKind.class, loader)) out.put(k.name(), k);
    return out;
  }

  public static Behavior<Command> create(Deps deps, Map<String, RunKind> kinds) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new Runs(ctx, timers, deps, kinds)));
  }

  private final TimerScheduler<Command> timers;
  private final Deps deps;
  private final Map<String, RunKind> kinds;
  private final ExecutorService workers = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "studio-run");
    t.setDaemon(true);
    return t;
  });
  private final AtomicBoolean interrupt = new AtomicBoolean();
  private final Set<UUID> active = new HashSet<>();
  private final List<ActorRef<Done>> drainWaiters = new ArrayList<>();
  private boolean draining;

  private Runs(ActorContext<Command> ctx, TimerScheduler<Command> timers, Deps deps, Map<String, RunKind> kinds) {
    super(ctx);
    this.timers = timers;
    this.deps = deps;
    this.kinds = kinds;
    ctx.getSelf().tell(new Recover());
    timers.startTimerWithFixedDelay(new Recover(), deps.recoveryInterval());
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Start.class, this::onStart)
        .onMessage(Created.class, this::onCreated)
        .onMessage(Finished.class, f -> {
          active.remove(f.id());
          checkDrained();
          return this;
        })
        .onMessage(Drain.class, this::onDrain)
        .onMessage(GraceOver.class, g -> {
          if (!active.isEmpty()) getContext().getLog().info("drain: interrupting {} run(s) past the grace", active.size());
          interrupt.set(true);
          return this;
        })
        .onMessage(Recover.class, r -> {
          getContext().pipeToSelf(CompletableFuture.supplyAsync(() -> {
            try {
              return deps.store().interruptOrphans(deps.goneAfter());
            } catch (java.sql.SQLException e) {
              throw new IllegalStateException(e.getMessage(), e);
            }
          }, deps.jdbc()), Recovered::new);
          return this;
        })
        .onMessage(Recovered.class, r -> {
          if (r.failure() == null && r.count() > 0) {
            getContext().getLog().info("recovery: {} run(s) of gone replicas recorded interrupted", r.count());
          }
          return this;
        })
        .onSignal(PostStop.class, s -> {
          interrupt.set(true);
          workers.shutdown();
          return this;
        })
        .build();
  }

  private Behavior<Command> onStart(Start s) {
    if (draining) {
      s.replyTo().tell(new Started(null, new Refusal(503, "Draining", "this replica is stopping; retry (another replica will take it)")));
      return this;
    }
    RunKind kind = kinds.get(s.kind());
    if (kind == null) {
      s.replyTo().tell(new Started(null, new Refusal(422, "Unknown run kind", "kind must be one of " + kinds.keySet())));
      return this;
    }
    try {
      kind.validate(s.params());
    } catch (IllegalArgumentException e) {
      s.replyTo().tell(new Started(null, new Refusal(422, "Invalid params", e.getMessage())));
      return this;
    }
    getContext().pipeToSelf(CompletableFuture.supplyAsync(() -> {
      try {
        var cluster = deps.clusters().get(s.clusterId());
        if (cluster.isEmpty()) return new Created(null, kind, null, s.replyTo(), new Refusal(404, "Not found", "no such cluster"), null);
        if (deps.views().splitBrain(s.clusterId())) {
          return new Created(null, kind, null, s.replyTo(), new Refusal(409, "Split brain",
              "the cluster's split-brain verdict is bad; bulk runs are refused until it heals"), null);
        }
        RunView run = deps.store().create(kind.name(), s.clusterId(), deps.replicaId(), s.params());
        return new Created(run, kind, cluster.get(), s.replyTo(), null, null);
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
    }, deps.jdbc()), (created, failure) -> failure == null ? created
        : new Created(null, kind, null, s.replyTo(), new Refusal(503, "Database unavailable", "retry shortly"), failure));
    return this;
  }

  private Behavior<Command> onCreated(Created c) {
    if (c.run() == null) {
      c.replyTo().tell(new Started(null, c.refusal()));
      return this;
    }
    RunContext ctx = new RunContext(c.cluster(), new BrokerClient(deps.http(), c.cluster(), deps.replicaId(),
        deps.brokerTimeout(), 1), c.run().params());
    RunWorker worker = new RunWorker(c.run(), c.kind(), ctx, deps.store(), deps.views(), deps.frames(),
        deps.replicaId(), interrupt);
    active.add(c.run().id());
    var self = getContext().getSelf();
    CompletableFuture.runAsync(worker, workers).whenComplete((ok, e) -> self.tell(new Finished(c.run().id())));
    c.replyTo().tell(new Started(c.run(), null));
    return this;
  }

  private Behavior<Command> onDrain(Drain d) {
    draining = true;
    drainWaiters.add(d.replyTo());
    if (!active.isEmpty()) {
      getContext().getLog().info("drain: {} run(s) get {} ms to finish", active.size(), d.grace().toMillis());
      timers.startSingleTimer(new GraceOver(), d.grace());
    }
    checkDrained();
    return this;
  }

  private void checkDrained() {
    if (draining && active.isEmpty()) {
      drainWaiters.forEach(r -> r.tell(Done.getInstance()));
      drainWaiters.clear();
    }
  }
}
