package dev.studio.app;

import dev.studio.testing.Publish;
import dev.studio.testing.SseClient;
import dev.studio.testing.StudioProcess;
import static dev.studio.app.ItSupport.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.studio.testing.Await;
import dev.studio.testing.TestPostgres;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** SIGTERM: readiness turns 503 first, then every SSE client is told to reconnect, then the process exits 0. */
class DrainStreamsIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @RegisterExtension final Replicas replicas = new Replicas();

  @Test
  void sigtermRefusesFirstThenSendsReconnectToEveryStreamAndExitsZero() throws Exception {
    StudioProcess a = replicas.start(pg, "drain-a", b -> b.prop("studio.drain.lb-grace", "1s")).awaitReady(Duration.ofSeconds(60));
    StudioProcess b = replicas.start(pg, "drain-b", x -> x).awaitReady(Duration.ofSeconds(60));
    try (SseClient one = new SseClient(a.port(), "x", "0"); SseClient two = new SseClient(a.port(), "x,y", "0")) {
      long id = Publish.frame(b, "x", "{\"before\":\"drain\"}");
      one.until(e -> e.idAsLong() == id, Duration.ofSeconds(10));
      two.until(e -> e.idAsLong() == id, Duration.ofSeconds(10));

      long termed = System.nanoTime();
      a.signal("TERM");
      Await.until("/readyz 503", Duration.ofSeconds(3), () -> a.get("/readyz").status() == 503);
      double refused = seconds(termed);
      assertTrue(!one.ended() && !two.ended(), "streams still open while the load balancer notices");

      SseClient.Event r1 = one.until(e -> "reconnect".equals(e.event()), Duration.ofSeconds(10)).get(0);
      double reconnected = seconds(termed);
      two.until(e -> "reconnect".equals(e.event()), Duration.ofSeconds(10));
      assertTrue(reconnected >= 1.0, "reconnect only after lb-grace: " + reconnected);
      Await.until("both streams closed", Duration.ofSeconds(10), () -> one.ended() && two.ended());
      assertEquals(0, a.awaitExit(Duration.ofSeconds(20)));
      System.out.printf("SIGTERM -> /readyz 503 %.2f s -> reconnect sent %.2f s -> exit %.2f s%n",
          refused, reconnected, seconds(termed));
      assertEquals("{}", r1.data());

      // the clients resume on the other replica without a gap
      long later = Publish.frame(b, "x", "{\"after\":\"drain\"}");
      try (SseClient resumed = new SseClient(b.port(), "x", Long.toString(id))) {
        assertEquals(later, resumed.next(Duration.ofSeconds(10)).idAsLong());
      }
    }
  }
}
