package dev.studio.replica;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.studio.db.Database;
import dev.studio.settings.StudioSettings;
import dev.studio.testing.Await;
import dev.studio.testing.MigratedDatabase;
import dev.studio.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.UUID;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

@ExtendWith(TestKitJUnit5Extension.class)
class ReplicaRegistryTest {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @JUnit5TestKit ActorTestKit testKit = new JUnit5TestKitBuilder().build();

  private static final Duration HEARTBEAT = Duration.ofMillis(200);
  private static final Duration GONE_AFTER = Duration.ofSeconds(1);

  private Database db;
  private ReplicaStore store;

  @BeforeEach
  void open() {
    db = MigratedDatabase.open(pg);
    store = new ReplicaStore(db);
  }

  @AfterEach
  void close() {
    db.close();
  }

  private StudioSettings.Replica settings(String id, String host) {
    return new StudioSettings.Replica(id, host, HEARTBEAT, GONE_AFTER, Duration.ofDays(7), 3, Duration.ofMinutes(10));
  }

  private ActorRef<ReplicaRegistry.Command> start(String id, String host) throws Exception {
    store.register(id, host, "0.1.0", false);
    ReplicaStatus status = new ReplicaStatus(id, false);
    return testKit.spawn(ReplicaRegistry.create(store, status, settings(id, host), new SimpleMeterRegistry()));
  }

  private ReplicaView view(String id) throws Exception {
    return store.list(GONE_AFTER, 100).stream().filter(r -> r.id().equals(id)).findFirst().orElseThrow();
  }

  private void change(ActorRef<ReplicaRegistry.Command> registry, ReplicaState state) {
    TestProbe<Done> probe = testKit.createTestProbe();
    registry.tell(new ReplicaRegistry.ChangeState(state, probe.getRef()));
    probe.expectMessage(Duration.ofSeconds(5), Done.getInstance());
  }

  private java.sql.Timestamp heartbeatAt(String id) throws Exception {
    return db.queryOne("SELECT heartbeat_at FROM studio_replica WHERE id = ?", rs -> rs.getTimestamp(1), id)
        .orElseThrow();
  }

  @Test
  void heartbeatAdvancesInDatabaseTime() throws Exception {
    String id = UUID.randomUUID().toString();
    start(id, "h-" + id);
    var first = heartbeatAt(id);
    var later = Await.until("heartbeat to advance twice", Duration.ofSeconds(5),
        () -> heartbeatAt(id), t -> t.getTime() >= first.getTime() + 2 * HEARTBEAT.toMillis() - 50);
    assertTrue(later.after(first));
    // written with the database's clock: its age, measured by the database, stays within one interval
    long ageMs = db.queryOne("SELECT (extract(epoch FROM now() - heartbeat_at) * 1000)::bigint FROM studio_replica WHERE id = ?",
        rs -> rs.getLong(1), id).orElseThrow();
    assertTrue(ageMs >= 0 && ageMs < 3 * HEARTBEAT.toMillis(), "heartbeat age in database time: " + ageMs + " ms");
    assertNull(view(id).ended());
  }

  @Test
  void silentReplicaBecomesGoneAsCrashButCleanStopIsNot() throws Exception {
    String crashing = UUID.randomUUID().toString();
    String stopping = UUID.randomUUID().toString();
    var a = start(crashing, "host-a");
    var b = start(stopping, "host-b");
    change(a, ReplicaState.READY);
    change(b, ReplicaState.READY);
    assertEquals("ready", view(crashing).state());

    testKit.stop(a); // heartbeats stop, no stop recorded: what a SIGKILL leaves behind
    change(b, ReplicaState.STOPPED);
    testKit.stop(b);

    ReplicaView crashed = Await.until("the silent replica to be gone", Duration.ofSeconds(10),
        () -> view(crashing), r -> r.ended() != null);
    assertEquals("crash", crashed.ended());
    assertEquals("ready", crashed.state());
    assertTrue(crashed.heartbeatAgeMs() >= GONE_AFTER.toMillis());

    ReplicaView stopped = view(stopping);
    assertEquals("clean", stopped.ended());
    assertEquals("stopped", stopped.state());
    assertTrue(stopped.stoppedAt() != null);
  }

  @Test
  void crashLoopGuardTripsOnCrashesNotBootsAndResets() throws Exception {
    String host = "loop-" + UUID.randomUUID();
    StudioSettings.Replica s = settings("me", host);
    // three crashes a minute ago: started, heartbeat gone stale, never stopped
    for (int i = 0; i < 3; i++) {
      db.update("""
          INSERT INTO studio_replica (id, host, version, state, started_at, heartbeat_at)
          VALUES (?, ?, '0.1.0', 'ready', now() - interval '60 seconds', now() - interval '50 seconds')""",
          UUID.randomUUID().toString(), host);
    }
    // boots that ended cleanly, and a live replica on the same host, are not crashes
    db.update("""
        INSERT INTO studio_replica (id, host, version, state, started_at, heartbeat_at, stopped_at)
        VALUES (?, ?, '0.1.0', 'stopped', now() - interval '30 seconds', now() - interval '20 seconds', now())""",
        UUID.randomUUID().toString(), host);
    store.register(UUID.randomUUID().toString(), host, "0.1.0", false);

    assertEquals(3, store.recentCrashes(host, s.crashLoopWindow(), s.goneAfter()));
    assertTrue(CrashLoopGuard.safeMode(store, s), "three crashes in the window trip the guard");

    // two of the crashes leave the window: the guard resets by itself
    db.update("""
        UPDATE studio_replica SET started_at = now() - interval '20 minutes'
        WHERE id IN (SELECT id FROM studio_replica WHERE host = ? AND state = 'ready'
                     AND heartbeat_at < now() - interval '40 seconds' LIMIT 2)""", host);
    assertEquals(1, store.recentCrashes(host, s.crashLoopWindow(), s.goneAfter()));
    assertFalse(CrashLoopGuard.safeMode(store, s));
  }
}
