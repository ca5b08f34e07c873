package dev.studio.lease;

import dev.studio.bus.BusMessage;
import dev.studio.bus.BusSubscriber;
import dev.studio.cluster.Cluster;
import dev.studio.cluster.ClusterStore;
import dev.studio.db.Database;
import dev.studio.owner.ClusterOwner;
import dev.studio.owner.OwnerDeps;
import dev.studio.replica.ReplicaStore;
import dev.studio.settings.StudioSettings;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * Holds this replica's cluster leases. A renewal pass (every {@code lease.renew-interval}, and at
 * once when a replica turns ready or draining, a lease is released, or a cluster is created or
 * deleted): renew every held lease in one statement; read the live set; place each cluster on the
 * live replica with the highest rendezvous hash; acquire what is ours and free; release what now
 * belongs to another live replica — after its owner actor has stopped — and signal so the other
 * takes it at once. A lease is lost when the last successful renewal <em>started</em> more than
 * {@code lease.lost-after} ago (monotonic clock), and at once when the bus connection (which holds
 * this replica's liveness lock) is lost.
 */
public final class Ownership extends AbstractBehavior<Ownership.Command> {

  public sealed interface Command {}

  /** Something relevant changed elsewhere: run a pass now. */
  public record Wake() implements Command {}

  /** Drain: stop every owner, release every lease, acquire nothing more. */
  public record ReleaseAll(ActorRef<Done> replyTo) implements Command {}

  /** For tests and the API: the leases held, with their tokens. */
  public record GetHeld(ActorRef<Map<UUID, Long>> replyTo) implements Command {}

  /** A cluster's settings changed: restart its owner (same lease) so duties see them. */
  private record Reload(UUID cluster) implements Command {}

  private record BusDown() implements Command {}

  private record BusUp() implements Command {}

  private record Tick() implements Command {}

  private record LostCheck() implements Command {}

  /** Cheap and frequent: has the live set changed (a replica died, its lock freed)? */
  private record LiveCheck() implements Command {}

  private record LiveRead(List<String> live, Throwable failure) implements Command {}

  private record PassDone(Pass pass, Throwable failure) implements Command {}

  private record OwnerStopped(UUID cluster, ActorRef<ClusterOwner.Command> ref) implements Command {}

  private record ReleaseDone(Map<UUID, Long> leases, Throwable failure) implements Command {}

  record Pass(long startedNanos, Map<UUID, Long> renewed, Map<UUID, Long> acquired, Set<UUID> toRelease,
      Map<UUID, Cluster> clusters, List<String> live) {}

  private static final class Held {
    final long token;
    ActorRef<ClusterOwner.Command> owner;
    boolean releasing;

    Held(long token) {
      this.token = token;
    }
  }

  /** Turns bus traffic into wake-ups: signals of the kinds that move placement, and connection changes. */
  public static BusSubscriber busListener(ActorRef<Command> ownership) {
    return new BusSubscriber() {
      @Override
      public void onMessage(BusMessage m) {
        if (!(m instanceof BusMessage.Signal s)) return;
        if (s.kind().equals(ClusterStore.CACHE_KIND) && !s.key().equals("*")) {
          try {
            ownership.tell(new Reload(UUID.fromString(s.key())));
          } catch (IllegalArgumentException notAnId) {
            // not a single cluster
          }
        }
        if (s.kind().equals(LeaseStore.SIGNAL_KIND) || s.kind().equals(ReplicaStore.CACHE_KIND)
            || s.kind().equals(ClusterStore.CACHE_KIND)) {
          ownership.tell(new Wake());
        }
      }

      @Override
      public void onReconnect() {
        ownership.tell(new BusUp());
      }

      @Override
      public void onDisconnect() {
        ownership.tell(new BusDown());
      }
    };
  }

  public static Behavior<Command> create(LeaseStore store, StudioSettings.Lease settings, OwnerDeps deps) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new Ownership(ctx, timers, store, settings, deps)));
  }

  private final TimerScheduler<Command> timers;
  private final LeaseStore store;
  private final StudioSettings.Lease settings;
  private final OwnerDeps deps;
  private final Executor jdbc;
  private final LeaseMetrics metrics;
  private final Map<UUID, Held> held = new HashMap<>();
  private final List<ActorRef<Done>> drainWaiters = new ArrayList<>();
  private long lastRenewStartNanos = System.nanoTime();
  private List<String> lastLive = List.of();
  private long generation;
  private boolean passRunning;
  private boolean passAgain;
  private boolean busUp;
  private boolean draining;
  /** Release statements in flight; owners that stop meanwhile are released together after them. */
  private int releasesInFlight;
  private boolean releaseAgain;

  private Ownership(ActorContext<Command> ctx, TimerScheduler<Command> timers, LeaseStore store,
      StudioSettings.Lease settings, OwnerDeps deps) {
    super(ctx);
    this.timers = timers;
    this.store = store;
    this.settings = settings;
    this.deps = deps;
    this.jdbc = deps.jdbc();
    this.metrics = new LeaseMetrics(deps.registry(), held::size);
    timers.startTimerWithFixedDelay(new Tick(), settings.renewInterval());
    timers.startTimerWithFixedDelay(new LostCheck(), Duration.ofMillis(Math.max(100, settings.lostAfter().toMillis() / 10)));
    timers.startTimerWithFixedDelay(new LiveCheck(), settings.liveCheckInterval());
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Tick.class, t -> pass())
        .onMessage(Wake.class, w -> pass())
        .onMessage(BusUp.class, b -> {
          busUp = true;
          return pass();
        })
        .onMessage(BusDown.class, b -> {
          busUp = false;
          // our liveness lock died with the connection: others may take our clusters now
          dropAll("the bus connection (liveness lock) was lost");
          return this;
        })
        .onMessage(LostCheck.class, l -> lostCheck())
        .onMessage(LiveCheck.class, l -> {
          if (busUp && !passRunning) {
            getContext().pipeToSelf(CompletableFuture.supplyAsync(() -> {
              try {
                return store.db().withConnection(store::live);
              } catch (SQLException e) {
                throw new IllegalStateException(e.getMessage(), e);
              }
            }, jdbc), LiveRead::new);
          }
          return this;
        })
        .onMessage(LiveRead.class, r -> r.failure() == null && !r.live().equals(lastLive) ? pass() : this)
        .onMessage(Reload.class, r -> {
          Held h = held.get(r.cluster());
          if (h != null && !h.releasing) stopOwner(h); // OwnerStopped → Wake → the pass restarts it
          return this;
        })
        .onMessage(PassDone.class, this::onPassDone)
        .onMessage(OwnerStopped.class, this::onOwnerStopped)
        .onMessage(ReleaseDone.class, this::onReleaseDone)
        .onMessage(ReleaseAll.class, this::onReleaseAll)
        .onMessage(GetHeld.class, g -> {
          Map<UUID, Long> out = new HashMap<>();
          held.forEach((id, h) -> {
            if (!h.releasing) out.put(id, h.token);
          });
          g.replyTo().tell(Map.copyOf(out));
          return this;
        })
        .build();
  }

  private Behavior<Command> pass() {
    if (!busUp) return this;
    if (passRunning) {
      passAgain = true;
      return this;
    }
    passRunning = true;
    Map<UUID, Long> mine = new HashMap<>();
    Set<UUID> ownerless = new HashSet<>();
    held.forEach((id, h) -> {
      if (!h.releasing) mine.put(id, h.token);
      if (!h.releasing && h.owner == null) ownerless.add(id);
    });
    boolean acquire = !draining;
    getContext().pipeToSelf(CompletableFuture.supplyAsync(() -> runPass(mine, ownerless, acquire), jdbc),
        (p, failure) -> new PassDone(p, failure));
    return this;
  }

  /** On the JDBC dispatcher. */
  private Pass runPass(Map<UUID, Long> mine, Set<UUID> ownerless, boolean acquire) {
    long start = System.nanoTime();
    try {
      Pass p = store.db().withConnection(c -> {
        Map<UUID, Long> renewed = store.renew(c, mine);
        if (!acquire) return new Pass(start, renewed, Map.of(), Set.of(), Map.of(), lastLive);
        List<String> live = store.live(c);
        String me = deps.replicaId();
        Set<UUID> desired = new HashSet<>();
        Set<UUID> toRelease = new HashSet<>();
        if (live.contains(me)) {
          for (UUID cluster : store.clusters(c)) {
            String owner = Rendezvous.owner(cluster, live);
            if (me.equals(owner)) {
              desired.add(cluster);
            } else if (renewed.containsKey(cluster)) {
              toRelease.add(cluster);
            }
          }
        }
        Set<UUID> wanted = new HashSet<>(desired);
        wanted.removeAll(renewed.keySet());
        Map<UUID, Long> acquired = store.acquire(c, wanted);
        Set<UUID> load = new HashSet<>(acquired.keySet());
        ownerless.stream().filter(renewed::containsKey).filter(id -> !toRelease.contains(id)).forEach(load::add);
        Map<UUID, Cluster> clusters = new HashMap<>();
        for (Cluster k : store.load(c, load)) clusters.put(k.id(), k);
        return new Pass(start, renewed, acquired, toRelease, clusters, live);
      });
      metrics.pass.record(Duration.ofNanos(System.nanoTime() - start));
      return p;
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private Behavior<Command> onPassDone(PassDone done) {
    passRunning = false;
    if (done.failure() != null) {
      getContext().getLog().warn("lease pass failed: {}; retrying in 1 s", done.failure().getMessage());
      timers.startSingleTimer("retry", new Tick(), Duration.ofSeconds(1));
      return this;
    }
    Pass p = done.pass();
    if (!busUp) return this; // the bus went down meanwhile: everything was dropped already
    lastRenewStartNanos = p.startedNanos();
    lastLive = p.live();
    // lost: held (not being released) but not renewed
    for (UUID id : new ArrayList<>(held.keySet())) {
      Held h = held.get(id);
      if (!h.releasing && !p.renewed().containsKey(id)) {
        metrics.losses.increment();
        getContext().getLog().warn("lease on cluster {} lost (renewal refused: token {} no longer ours)", id, h.token);
        stopOwner(h);
        held.remove(id);
      }
    }
    for (var e : p.acquired().entrySet()) {
      metrics.acquisitions.increment();
      held.put(e.getKey(), new Held(e.getValue()));
    }
    if (draining) {
      // acquired while the drain began: give them back at once
      releaseNow(p.acquired());
    }
    for (var e : held.entrySet()) {
      Held h = e.getValue();
      if (!h.releasing && h.owner == null && p.clusters().containsKey(e.getKey())) {
        h.owner = spawnOwner(p.clusters().get(e.getKey()), h.token);
      }
    }
    for (UUID id : p.toRelease()) {
      Held h = held.get(id);
      if (h != null && !h.releasing) beginRelease(id, h);
    }
    if (passAgain) {
      passAgain = false;
      return pass();
    }
    return this;
  }

  private ActorRef<ClusterOwner.Command> spawnOwner(Cluster cluster, long token) {
    // a child's name stays reserved until its termination is processed: a generation keeps names unique
    var ref = getContext().spawn(deps.actorMetrics().instrument("cluster-owner", ClusterOwner.create(cluster, token, deps)),
        "owner-" + cluster.id() + "-" + (++generation));
    getContext().watchWith(ref, new OwnerStopped(cluster.id(), ref));
    return ref;
  }

  private void stopOwner(Held h) {
    if (h.owner != null) getContext().stop(h.owner);
  }

  /** Releasing is ordered: stop the owner, wait for its termination, then release, then signal. */
  private void beginRelease(UUID id, Held h) {
    h.releasing = true;
    if (h.owner == null) {
      releaseNow(Map.of(id, h.token));
    } else {
      getContext().stop(h.owner);
    }
  }

  private Behavior<Command> onOwnerStopped(OwnerStopped stopped) {
    Held h = held.get(stopped.cluster());
    if (h == null || h.owner != stopped.ref()) return this; // an owner of an earlier generation
    h.owner = null;
    if (h.releasing) {
      // hundreds of owners stop one by one in a drain: one release statement at a time, each taking
      // every lease whose owner has stopped since, instead of a statement per owner
      if (releasesInFlight > 0) {
        releaseAgain = true;
      } else {
        releaseStopped();
      }
    } else {
      // the owner stopped on its own (fenced out) or for a reload: the next pass sorts it out
      getContext().getSelf().tell(new Wake());
    }
    return this;
  }

  /** Releases, in one statement, every lease being released whose owner has stopped. */
  private void releaseStopped() {
    Map<UUID, Long> ready = new HashMap<>();
    held.forEach((id, x) -> {
      if (x.releasing && x.owner == null) ready.put(id, x.token);
    });
    releaseNow(ready);
  }

  private void releaseNow(Map<UUID, Long> leases) {
    if (leases.isEmpty()) {
      checkDrained();
      return;
    }
    releasesInFlight++;
    Map<UUID, Long> copy = Map.copyOf(leases);
    getContext().pipeToSelf(CompletableFuture.supplyAsync(() -> {
      try {
        return store.db().inTransaction(c -> store.release(c, copy));
      } catch (SQLException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
    }, jdbc), (n, failure) -> new ReleaseDone(copy, failure));
    copy.keySet().forEach(held::remove);
  }

  private Behavior<Command> onReleaseDone(ReleaseDone done) {
    releasesInFlight--;
    if (releaseAgain && releasesInFlight == 0) {
      releaseAgain = false;
      releaseStopped();
    }
    if (done.failure() != null) {
      // the leases expire on their own (TTL); the owners are stopped already, so single ownership holds
      getContext().getLog().warn("releasing {} lease(s) failed: {}", done.leases().size(), done.failure().getMessage());
    } else {
      metrics.releases.increment(done.leases().size());
    }
    checkDrained();
    return this;
  }

  private Behavior<Command> onReleaseAll(ReleaseAll cmd) {
    draining = true;
    drainWaiters.add(cmd.replyTo());
    for (var e : held.entrySet()) {
      if (!e.getValue().releasing) beginRelease(e.getKey(), e.getValue());
    }
    checkDrained();
    return this;
  }

  private void checkDrained() {
    if (draining && held.isEmpty() && !drainWaiters.isEmpty()) {
      drainWaiters.forEach(r -> r.tell(Done.getInstance()));
      drainWaiters.clear();
    }
  }

  private Behavior<Command> lostCheck() {
    if (!held.isEmpty() && System.nanoTime() - lastRenewStartNanos > settings.lostAfter().toNanos()) {
      dropAll("no successful renewal started within " + settings.lostAfter().toMillis() + " ms");
      pass();
    }
    return this;
  }

  private void dropAll(String why) {
    if (held.isEmpty()) return;
    getContext().getLog().warn("treating {} lease(s) as lost: {}", held.size(), why);
    for (Held h : held.values()) {
      if (!h.releasing) metrics.losses.increment();
      stopOwner(h);
    }
    held.clear();
    checkDrained();
  }
}
