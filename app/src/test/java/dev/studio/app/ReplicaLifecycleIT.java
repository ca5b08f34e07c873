package dev.studio.app;

import dev.studio.testing.StudioProcess;
import static dev.studio.app.ItSupport.listed;
import static dev.studio.app.ItSupport.replicaId;
import static dev.studio.app.ItSupport.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.testing.Await;
import dev.studio.testing.FakeRabbit;
import dev.studio.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two real replicas at the <em>default</em> timings on one empty database: they migrate once, list
 * each other, a SIGKILLed one's clusters are taken over within DESIGN's 20 s bound and it shows as
 * crashed once 15 s have passed, a SIGTERMed one drains
 * (readiness 503 first), records a clean stop and exits 0.
 */
class ReplicaLifecycleIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @RegisterExtension final Replicas replicas = new Replicas();

  @Test
  void replicasStartedTogetherMigrateOnceSeeEachOtherAndEndCleanOrCrashed() throws Exception {
    long t0 = System.nanoTime();
    StudioProcess a = replicas.track(StudioProcess.builder("lifecycle-a").database(pg.url(), pg.user(), pg.password()).start());
    StudioProcess b = replicas.track(StudioProcess.builder("lifecycle-b").database(pg.url(), pg.user(), pg.password()).start());
    a.awaitReady(Duration.ofSeconds(90));
    b.awaitReady(Duration.ofSeconds(90));
    System.out.printf("two replicas from start to ready: %.1f s%n", seconds(t0));

    try (Connection c = pg.connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT count(*), count(DISTINCT version) FROM flyway_schema_history WHERE version IS NOT NULL")) {
      rs.next();
      assertEquals(rs.getInt(2), rs.getInt(1), "each migration applied exactly once");
      assertTrue(rs.getInt(1) >= 2);
    }
    assertTrue(a.log().contains("applied") ^ b.log().contains("applied"),
        "exactly one replica applied migrations; the other found them done");

    String idA = replicaId(a);
    String idB = replicaId(b);
    for (StudioProcess p : new StudioProcess[] {a, b}) {
      for (String id : new String[] {idA, idB}) {
        Await.until(p.name() + " lists " + id + " as ready", Duration.ofSeconds(10),
            () -> listed(p, id).map(n -> n.get("state").asText().equals("ready")).orElse(false));
      }
    }

    // clusters on the test broker, so the SIGKILL below also measures takeover at the default timings
    long killed;
    try (FakeRabbit broker = new FakeRabbit()) {
      java.nio.file.Path pw = java.nio.file.Files.createTempFile("pw", "");
      java.nio.file.Files.writeString(pw, FakeRabbit.PASSWORD);
      for (int i = 0; i < 10; i++) Api.createCluster(i % 2 == 0 ? a : b, "life" + i, broker.url("life" + i), pw.toString());
      Await.until("A owns clusters", Duration.ofSeconds(20), () -> {
        var o = OwnershipIT.owners(b);
        return o.size() == 10 && o.containsValue(idA);
      });
      killed = System.nanoTime();
      a.signal("KILL");
      Await.until("B owns every cluster", Duration.ofSeconds(25), () -> {
        var o = OwnershipIT.owners(b);
        return o.size() == 10 && !o.containsValue(idA);
      });
      double takeover = seconds(killed);
      System.out.printf("default timings: takeover after SIGKILL: %.2f s (bound 20 s)%n", takeover);
      assertTrue(takeover <= 20.0, "takeover " + takeover);
    }
    a.awaitExit(Duration.ofSeconds(10));
    JsonNode crashed = Await.until("B to list A as crashed", Duration.ofSeconds(30),
        () -> listed(b, idA).orElseThrow(), n -> n.get("ended").asText().equals("crash"));
    double crashSeen = seconds(killed);
    System.out.printf("SIGKILLed replica listed as crashed after: %.1f s (gone-after 15 s)%n", crashSeen);
    assertTrue(crashed.get("heartbeatAgeMs").asLong() >= 15_000, crashed.toString());
    assertTrue(crashSeen >= 9.0, "not declared gone before its heartbeat could be 15 s old: " + crashSeen);

    long termed = System.nanoTime();
    b.signal("TERM");
    Await.until("B's /readyz to turn 503 on SIGTERM", Duration.ofSeconds(3), () -> b.get("/readyz").status() == 503);
    System.out.printf("SIGTERM to /readyz 503: %.2f s%n", seconds(termed));
    assertEquals(200, b.get("/livez").status(), "alive while draining");
    assertEquals(0, b.awaitExit(Duration.ofSeconds(40)), "a drained replica exits 0");
    System.out.printf("SIGTERM to exit (lb-grace 5 s): %.1f s%n", seconds(termed));

    try (Connection c = pg.connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT state, stopped_at IS NOT NULL FROM studio_replica WHERE id = '" + idB + "'")) {
      assertTrue(rs.next());
      assertEquals("stopped", rs.getString(1));
      assertTrue(rs.getBoolean(2), "clean stop recorded with its time");
    }
  }
}
