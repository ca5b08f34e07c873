package dev.studio.app;

import dev.studio.testing.Publish;
import dev.studio.testing.SseClient;
import dev.studio.testing.StudioProcess;
import static dev.studio.app.ItSupport.listed;
import static dev.studio.app.ItSupport.replicaId;
import static dev.studio.app.ItSupport.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.studio.testing.Await;
import dev.studio.testing.TcpProxy;
import dev.studio.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The bus on a real process: a killed LISTEN connection, a bus that stays away, caches across replicas. */
class BusRecoveryIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @RegisterExtension final Replicas replicas = new Replicas();
  static final Duration WAIT = Duration.ofSeconds(15);

  @Test
  void terminatedListenConnectionReconnectsResyncsClientsAndClearsCaches() throws Exception {
    StudioProcess p = replicas.start(pg, "bus-kill", b -> b.prop("studio.bus.cache-ttl", "1h"))
        .awaitReady(Duration.ofSeconds(60));
    String id = replicaId(p);
    try (SseClient client = new SseClient(p.port(), "news", "0")) { // replay from 0: no race with the subscription
      long first = Publish.frame(p, "news", "{\"n\":1}");
      assertEquals(first, client.until(e -> e.idAsLong() == first, WAIT).get(0).idAsLong());

      // fill the cache, then change the row behind Studio's back (no signal): the cache must hide it
      assertEquals("0.1.0", listed(p, id).orElseThrow().get("version").asText());
      try (Connection c = pg.connect(); Statement st = c.createStatement()) {
        st.executeUpdate("UPDATE studio_replica SET version = '0.1.0-changed' WHERE id = '" + id + "'");
      }
      assertEquals("0.1.0", listed(p, id).orElseThrow().get("version").asText(), "served from the cache");

      long killedAt = System.nanoTime();
      try (Connection c = pg.connect(); Statement st = c.createStatement();
           ResultSet rs = st.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
               + "WHERE application_name = 'studio-bus' AND datname = current_database()")) {
        rs.next();
        assertEquals(1, rs.getInt(1));
      }
      SseClient.Event resync = client.until(e -> "resync".equals(e.event()), WAIT).get(0);
      System.out.printf("LISTEN connection terminated to client resync: %.2f s%n", seconds(killedAt));
      assertTrue(resync.data().contains("bus reconnected"), resync.data());
      assertEquals("0.1.0-changed", listed(p, id).orElseThrow().get("version").asText(), "cache cleared on reconnect");

      long after = Publish.frame(p, "news", "{\"n\":2}");
      assertEquals(after, client.next(WAIT).idAsLong(), "live again after the reconnect");
    }
  }

  @Test
  void busDownLongerThanItsLimitTurnsUnreadyAndRecoversByItself() throws Exception {
    try (TcpProxy busPath = new TcpProxy(pg.server().host(), pg.server().port())) {
      String busUrl = "jdbc:postgresql://127.0.0.1:" + busPath.port() + "/" + pg.database();
      StudioProcess p = replicas.start(pg, "bus-down", b -> b.env("STUDIO_BUS_DB_URL", busUrl)
          .prop("studio.bus.down-unready-after", "2s")).awaitReady(Duration.ofSeconds(60));

      long cut = System.nanoTime();
      busPath.refuse(true);
      Await.until("/readyz 503 once the bus is down past its limit", Duration.ofSeconds(10),
          () -> p.get("/readyz").status() == 503);
      double unready = seconds(cut);
      System.out.printf("bus cut to /readyz 503 (limit 2 s): %.2f s%n", unready);
      assertTrue(unready >= 1.5, "not unready before the limit: " + unready);
      assertTrue(p.get("/readyz").body().contains("\"name\":\"bus\",\"ok\":false"), p.get("/readyz").body());
      assertEquals(200, p.get("/livez").status());

      long healed = System.nanoTime();
      busPath.refuse(false);
      p.awaitReady(Duration.ofSeconds(15));
      System.out.printf("bus back to /readyz 200: %.2f s%n", seconds(healed));
    }
  }

  @Test
  void aChangeThroughOneReplicaInvalidatesAnothersCacheBeforeItsNextRead() throws Exception {
    // invariant 7; the cache TTL is an hour, so only the signal can explain a fresh read
    StudioProcess a = replicas.start(pg, "cache-a", b -> b.prop("studio.bus.cache-ttl", "1h")).awaitReady(Duration.ofSeconds(60));
    StudioProcess b = replicas.start(pg, "cache-b", x -> x.prop("studio.bus.cache-ttl", "1h")).awaitReady(Duration.ofSeconds(60));
    String idA = replicaId(a);
    assertEquals("ready", listed(b, idA).orElseThrow().get("state").asText()); // B caches the list

    long termed = System.nanoTime();
    a.signal("TERM"); // A records draining, then stopped: each change signals every replica
    Await.until("B to show A's stop", Duration.ofSeconds(10),
        () -> "stopped".equals(listed(b, idA).orElseThrow().get("state").asText()));
    System.out.printf("A's clean stop visible in B's cached list after: %.2f s%n", seconds(termed));
    assertEquals(0, a.awaitExit(Duration.ofSeconds(20)));
  }
}
