package dev.studio.app;

import static dev.studio.app.ItSupport.replicaId;
import static dev.studio.app.ItSupport.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.testing.Await;
import dev.studio.testing.FakeRabbit;
import dev.studio.testing.Publish;
import dev.studio.testing.SseClient;
import dev.studio.testing.StudioProcess;
import dev.studio.testing.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The drain sequence on a real process, from the outside: SIGTERM during SSE streaming, with
 * clusters owned and a long bulk run. Readiness turns 503 first; the leases are owned elsewhere
 * before any stream ends; every client gets {@code reconnect} before its stream closes; the run is
 * recorded {@code interrupted} with its progress after the grace; the process exits 0.
 */
class DrainStreamsIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @RegisterExtension final Replicas replicas = new Replicas();

  @Test
  void sigtermRefusesHandsOverReconnectsStreamsInterruptsRunsAndExitsZero() throws Exception {
    try (FakeRabbit broker = new FakeRabbit()) {
      Path pw = Files.createTempFile("pw", "");
      Files.writeString(pw, FakeRabbit.PASSWORD);
      StudioProcess a = replicas.start(pg, "drain-a", x -> RunsIT.fast().apply(x).prop("studio.drain.lb-grace", "1s"))
          .awaitReady(Duration.ofSeconds(60));
      StudioProcess b = replicas.start(pg, "drain-b", x -> RunsIT.fast().apply(x)).awaitReady(Duration.ofSeconds(60));
      String idA = replicaId(a);
      String longCluster = null;
      for (int i = 0; i < 10; i++) {
        String id = Api.createCluster(b, "d" + i, broker.url("d" + i), pw.toString());
        if (i == 0) longCluster = id;
      }
      Await.until("A owns some clusters", Duration.ofSeconds(20), () -> OwnershipIT.owners(b).containsValue(idA)
          && OwnershipIT.owners(b).size() == 10);
      FakeRabbit.Model slow = broker.cluster("d0").slowActions(200);
      for (int i = 0; i < 40; i++) slow.queue("/", "q" + i, 1);
      String run = RunsIT.start(a, "purge-queues", longCluster, "{\"vhost\":\"/\",\"pattern\":\"q.*\"}");
      Await.until("the run makes progress", Duration.ofSeconds(20), () -> Api.get(b, "/api/v1/runs/" + run).get("done").asInt() > 0);

      try (SseClient one = new SseClient(a.port(), "x", "0"); SseClient two = new SseClient(a.port(), "x,y", "0")) {
        long id = Publish.frame(b, "x", "{\"before\":\"drain\"}");
        one.until(e -> e.idAsLong() == id, Duration.ofSeconds(10));
        two.until(e -> e.idAsLong() == id, Duration.ofSeconds(10));

        long termed = System.nanoTime();
        a.signal("TERM");
        Await.until("/readyz 503", Duration.ofSeconds(3), () -> a.get("/readyz").status() == 503);
        double refused = seconds(termed);
        assertTrue(!one.ended() && !two.ended(), "streams still open while the load balancer notices");
        Await.until("every cluster owned by B", Duration.ofSeconds(5), () -> {
          var o = OwnershipIT.owners(b);
          return o.size() == 10 && !o.containsValue(idA);
        });
        double handedOver = seconds(termed);
        assertTrue(!one.ended() && !two.ended(), "leases are owned elsewhere before any stream ends");

        SseClient.Event r1 = one.until(e -> "reconnect".equals(e.event()), Duration.ofSeconds(10)).get(0);
        double reconnected = seconds(termed);
        two.until(e -> "reconnect".equals(e.event()), Duration.ofSeconds(10));
        assertTrue(reconnected >= 1.0, "reconnect only after lb-grace: " + reconnected);
        assertEquals("{}", r1.data());
        Await.until("both streams closed", Duration.ofSeconds(10), () -> one.ended() && two.ended());
        assertEquals(0, a.awaitExit(Duration.ofSeconds(30)));
        System.out.printf("SIGTERM -> /readyz 503 %.2f s -> clusters owned by B %.2f s -> reconnect sent %.2f s -> exit %.2f s%n",
            refused, handedOver, reconnected, seconds(termed));
        assertTrue(handedOver <= 1.5, "handover " + handedOver);

        JsonNode interrupted = Api.get(b, "/api/v1/runs/" + run);
        assertEquals("interrupted", interrupted.get("state").asText(), interrupted.toString());
        assertTrue(interrupted.get("done").asInt() > 0 && interrupted.get("done").asInt() < 40);
        assertEquals(interrupted.get("done").asLong(), slow.purges());

        // the clients resume on the other replica without a gap
        long later = Publish.frame(b, "x", "{\"after\":\"drain\"}");
        try (SseClient resumed = new SseClient(b.port(), "x", Long.toString(id))) {
          assertEquals(later, resumed.next(Duration.ofSeconds(10)).idAsLong());
        }
      }
    }
  }
}
