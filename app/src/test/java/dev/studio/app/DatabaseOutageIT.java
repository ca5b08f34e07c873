package dev.studio.app;

import dev.studio.testing.StudioProcess;
import static dev.studio.app.ItSupport.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.studio.testing.Await;
import dev.studio.testing.TcpProxy;
import dev.studio.testing.TestPostgres;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code /readyz} follows the database, {@code /livez} never does, and both recover unaided: a
 * stopped PostgreSQL and one that accepts TCP but never answers.
 */
class DatabaseOutageIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.dedicated();
  @RegisterExtension final Replicas replicas = new Replicas();

  /** readiness.timeout (2 s) + readiness.cache-ttl (1 s) + one probe round. */
  private static final Duration UNREADY_BOUND = Duration.ofMillis(3_500);

  @Test
  void stoppedDatabaseTurnsReadinessButNeverLivenessAndBothRecover() throws Exception {
    StudioProcess p = replicas.start(pg, "outage", b -> b).awaitReady(Duration.ofSeconds(60));

    long stopped = System.nanoTime();
    pg.stopServer();
    Await.until("/readyz 503 with the database stopped", UNREADY_BOUND.plusSeconds(1),
        () -> p.get("/readyz").status() == 503);
    double unready = seconds(stopped);
    System.out.printf("database stopped to /readyz 503: %.2f s%n", unready);
    assertTrue(unready <= UNREADY_BOUND.toMillis() / 1000.0, "unready after " + unready + " s");

    // the outage lasts a while: liveness answers quickly from memory the whole time
    long outageEnd = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (System.nanoTime() < outageEnd) {
      long t = System.nanoTime();
      assertEquals(200, p.get("/livez").status());
      assertTrue(seconds(t) < 1.0, "livez took " + seconds(t) + " s");
      assertEquals(503, p.get("/readyz").status());
    }

    long started = System.nanoTime();
    pg.startServer();
    p.awaitReady(Duration.ofSeconds(20));
    System.out.printf("database back to /readyz 200: %.2f s%n", seconds(started));
    assertTrue(p.alive(), "the replica rode out the outage without restarting");
  }

  @Test
  void databaseThatAcceptsButNeverAnswersGivesUnreadyNotAHang() throws Exception {
    try (TcpProxy proxy = new TcpProxy(pg.server().host(), pg.server().port())) {
      String url = "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + pg.database();
      StudioProcess p = replicas.track(StudioProcess.builder("black-hole")
          .database(url, pg.user(), pg.password())
          .prop("studio.replica.heartbeat-interval", "500ms").start());
      p.awaitReady(Duration.ofSeconds(60));

      long holed = System.nanoTime();
      proxy.blackHole(true);
      Await.until("/readyz 503 from a silent database", UNREADY_BOUND.plusSeconds(1), () -> {
        long t = System.nanoTime();
        StudioProcess.Reply r = p.get("/readyz", Duration.ofSeconds(4));
        assertTrue(seconds(t) < 3.0, "/readyz hung for " + seconds(t) + " s");
        return r.status() == 503;
      });
      double unready = seconds(holed);
      System.out.printf("silent database to /readyz 503: %.2f s%n", unready);
      assertTrue(unready <= UNREADY_BOUND.toMillis() / 1000.0, "unready after " + unready + " s");
      String body = p.get("/readyz").body();
      assertTrue(body.contains("{\"name\":\"database\",\"ok\":false"), body);
      assertEquals(200, p.get("/livez").status());

      long healed = System.nanoTime();
      proxy.blackHole(false);
      p.awaitReady(Duration.ofSeconds(30));
      System.out.printf("database answering again to /readyz 200: %.2f s%n", seconds(healed));
    }
  }
}
