package dev.studio.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.studio.bus.BusMetrics;
import dev.studio.bus.BusStatus;
import dev.studio.bus.FramePublisher;
import dev.studio.cluster.Cluster;
import dev.studio.cluster.ClusterSpec;
import dev.studio.cluster.ClusterStore;
import dev.studio.db.Database;
import dev.studio.duty.ClusterContext;
import dev.studio.duty.ClusterDuty;
import dev.studio.duty.DutyRegistry;
import dev.studio.lease.LeaseStore;
import dev.studio.metrics.ActorMetrics;
import dev.studio.testing.Await;
import dev.studio.testing.MigratedDatabase;
import dev.studio.testing.TestPostgres;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Fencing (invariant 6) and duty supervision, with real leases in a real PostgreSQL. */
@ExtendWith(TestKitJUnit5Extension.class)
class FencedOwnerTest {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @JUnit5TestKit ActorTestKit testKit = new JUnit5TestKitBuilder().build();

  private Database db;
  private Cluster cluster;
  private SimpleMeterRegistry registry;
  private Counter rejections;
  private FramePublisher frames;

  @BeforeEach
  void setUp() throws Exception {
    db = MigratedDatabase.open(pg);
    registry = new SimpleMeterRegistry();
    rejections = registry.counter("rejections");
    frames = new FramePublisher(db, new BusMetrics(registry, new BusStatus()));
    cluster = new ClusterStore(db).create(ClusterSpec.from(new com.fasterxml.jackson.databind.ObjectMapper().readTree(
        "{\"name\":\"c1\",\"managementUrl\":\"http://127.0.0.1:1\",\"username\":\"u\",\"passwordRef\":\"env:NOPE\"}")));
  }

  @AfterEach
  void tearDown() {
    frames.close();
    db.close();
  }

  /** Takes the lease for {@code replica} the way a pass would, expiring the current holder first. */
  private long takeLease(String replica) throws Exception {
    db.update("UPDATE cluster_lease SET expires_at = now() - interval '1 second'");
    LeaseStore store = new LeaseStore(db, replica, Duration.ofSeconds(15), Duration.ofSeconds(15));
    Map<java.util.UUID, Long> won = db.withConnection(c -> store.acquire(c, List.of(cluster.id())));
    assertEquals(1, won.size(), replica + " acquires");
    return won.get(cluster.id());
  }

  private OwnerDeps deps(String replica, List<ClusterDuty> duties) {
    return new OwnerDeps(db, frames, HttpClient.newHttpClient(), replica, ForkJoinPool.commonPool(), ForkJoinPool.commonPool(), registry,
        new ActorMetrics(registry), DutyRegistry.of(duties), false, Duration.ofSeconds(5), Duration.ofSeconds(60),
        Duration.ofSeconds(2), 2, rejections);
  }

  @Test
  void staleOwnersWriteIsRejectedCountedAndItsOwnerStopped() throws Exception {
    long tokenA = takeLease("replica-a");
    CompletableFuture<ClusterContext> contextOfA = new CompletableFuture<>();
    ClusterDuty capture = new ClusterDuty() {
      @Override
      public String name() {
        return "capture";
      }

      @Override
      public Behavior<?> create(ClusterContext context) {
        contextOfA.complete(context);
        return Behaviors.empty();
      }
    };
    var owner = testKit.spawn(ClusterOwner.create(cluster, tokenA, deps("replica-a", List.of(capture))));
    ClusterContext a = contextOfA.get();
    assertTrue(a.writer().putState("a", "{\"by\":\"a\"}"), "the holder writes");

    // A pauses past its lease; B takes over with token + 1
    long tokenB = takeLease("replica-b");
    assertEquals(tokenA + 1, tokenB, "the fencing token grows on every acquisition");
    FencedWriter b = new FencedWriter(db, cluster.id(), "replica-b", tokenB, registry.counter("b-rejections"));
    assertTrue(b.putState("a", "{\"by\":\"b\"}"));

    // A wakes up and tries to write: refused, counted, and its owner stops
    TestProbe<Object> probe = testKit.createTestProbe();
    assertFalse(a.writer().putState("a", "{\"by\":\"stale a\"}"));
    assertEquals(1.0, rejections.count());
    probe.expectTerminated(owner, Duration.ofSeconds(5));
    String state = db.queryOne("SELECT state->>'by' FROM cluster_state WHERE cluster_id = ? AND tier = 'a'",
        rs -> rs.getString(1), cluster.id()).orElseThrow();
    assertEquals("b", state, "the successor's state stands");
  }

  @Test
  void aFailingDutyIsRestartedWithBackoffWhileItsSiblingKeepsRunning() throws Exception {
    long token = takeLease("replica-a");
    AtomicInteger failingStarts = new AtomicInteger();
    AtomicInteger siblingTicks = new AtomicInteger();
    ClusterDuty failing = new ClusterDuty() {
      @Override
      public String name() {
        return "failing";
      }

      @Override
      public Behavior<?> create(ClusterContext context) {
        return Behaviors.setup(ctx -> {
          failingStarts.incrementAndGet();
          ctx.getSelf().tell("boom");
          return Behaviors.receive(Object.class).onAnyMessage(m -> {
            throw new IllegalStateException("duty failure (expected by the test)");
          }).build();
        });
      }
    };
    ClusterDuty sibling = new ClusterDuty() {
      @Override
      public String name() {
        return "sibling";
      }

      @Override
      public Behavior<?> create(ClusterContext context) {
        return Behaviors.<String>setup(ctx -> Behaviors.withTimers(t -> {
          t.startTimerWithFixedDelay("tick", Duration.ofMillis(100));
          return Behaviors.receive(String.class).onAnyMessage(m -> {
            siblingTicks.incrementAndGet();
            return Behaviors.same();
          }).build();
        }));
      }
    };
    var owner = testKit.spawn(ClusterOwner.create(cluster, token, deps("replica-a", List.of(failing, sibling))));
    Await.until("the failing duty restarted twice", Duration.ofSeconds(10), () -> failingStarts.get() >= 3);
    int ticks = siblingTicks.get();
    Await.until("the sibling still ticks", Duration.ofSeconds(5), () -> siblingTicks.get() > ticks + 5);
    assertTrue(registry.get("studio.actor.restarts").tags("actor", "duty-failing").counter().count() >= 2);
    TestProbe<Object> probe = testKit.createTestProbe();
    testKit.stop(owner);
    probe.expectTerminated(owner, Duration.ofSeconds(5));
    Await.until("duties stop with their owner", Duration.ofSeconds(5),
        () -> registry.get("studio.actors.live").tags("actor", "duty-sibling").gauge().value() == 0.0);
  }
}
