package dev.studio.app;

import static dev.studio.app.ItSupport.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.testing.Await;
import dev.studio.testing.FakeRabbit;
import dev.studio.testing.SseClient;
import dev.studio.testing.StudioProcess;
import dev.studio.testing.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Bulk runs on real processes: exact effects at the broker, stop through any replica, drain, recovery. */
class RunsIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @RegisterExtension final Replicas replicas = new Replicas();

  static UnaryOperator<StudioProcess.Builder> fast() {
    return b -> OwnershipIT.fast().apply(b).prop("studio.drain.run-grace", "1s").prop("studio.drain.recovery-interval", "1s");
  }

  static String start(StudioProcess p, String kind, String cluster, String params) throws Exception {
    Api.Reply r = Api.send(p, "POST", "/api/v1/runs", "{\"kind\":\"" + kind + "\",\"clusterId\":\"" + cluster
        + "\",\"params\":" + params + "}");
    assertEquals(201, r.status(), r.body());
    return r.json().get("id").asText();
  }

  static JsonNode awaitState(StudioProcess via, String run, String state) {
    return Await.until("run " + run + " " + state, Duration.ofSeconds(30), () -> Api.get(via, "/api/v1/runs/" + run),
        r -> r.get("state").asText().equals(state));
  }

  private static String cluster(FakeRabbit broker, StudioProcess p, String name) throws Exception {
    Path pw = Files.createTempFile("pw", "");
    Files.writeString(pw, FakeRabbit.PASSWORD);
    return Api.createCluster(p, name, broker.url(name), pw.toString());
  }

  @Test
  void purgeAndDeleteTouchExactlyTheMatchingQueuesWithAccurateProgress() throws Exception {
    try (FakeRabbit broker = new FakeRabbit()) {
      StudioProcess a = replicas.start(pg, "runs-a", fast()).awaitReady(Duration.ofSeconds(60));
      StudioProcess b = replicas.start(pg, "runs-b", fast()).awaitReady(Duration.ofSeconds(60));
      FakeRabbit.Model m = broker.cluster("q");
      for (int i = 1; i <= 20; i++) m.queue("/", "orders." + i, 5);
      for (int i = 1; i <= 3; i++) m.queue("/", "audit." + i, 5);
      m.queue("v2", "orders.x", 5).queue("/", "xorders.1", 5);
      String id = cluster(broker, a, "q");

      try (SseClient progress = new SseClient(b.port(), "runs", "0")) {
        String dry = start(a, "purge-queues", id, "{\"vhost\":\"/\",\"pattern\":\"orders\\\\..*\",\"dryRun\":true}");
        JsonNode dryRun = awaitState(b, dry, "succeeded");
        assertEquals(20, dryRun.get("result").get("items").size(), dryRun.toString());
        assertEquals(0, m.purges(), "a dry run touches nothing");

        String purge = start(a, "purge-queues", id, "{\"vhost\":\"/\",\"pattern\":\"orders\\\\..*\"}");
        JsonNode done = awaitState(b, purge, "succeeded");
        assertEquals(20, done.get("done").asInt());
        assertEquals(20, done.get("total").asInt());
        assertEquals(20, m.purges(), "exactly the matching queues, counted at the broker");
        assertEquals(0, m.messages("/", "orders.7"));
        assertEquals(5, m.messages("/", "audit.1"));
        assertEquals(5, m.messages("v2", "orders.x"), "another vhost is not touched");
        assertEquals(5, m.messages("/", "xorders.1"), "the pattern matches the whole name");
        progress.until(e -> e.data().contains(purge) && e.data().contains("\"state\":\"succeeded\""), Duration.ofSeconds(10));
      }

      String delete = start(b, "delete-queues", id, "{\"vhost\":\"/\",\"pattern\":\"audit\\\\..*\"}");
      JsonNode deleted = awaitState(a, delete, "succeeded");
      assertEquals(3, deleted.get("done").asInt());
      assertEquals(3, m.deletes());
      assertTrue(!m.hasQueue("/", "audit.2") && m.hasQueue("/", "orders.2"));

      assertEquals(422, Api.send(a, "POST", "/api/v1/runs", "{\"kind\":\"purge-queues\",\"clusterId\":\"" + id
          + "\",\"params\":{\"vhost\":\"/\",\"pattern\":\"([\"}}").status(), "a broken regex is refused");
      assertEquals(422, Api.send(a, "POST", "/api/v1/runs", "{\"kind\":\"rm-rf\",\"clusterId\":\"" + id
          + "\",\"params\":{}}").status());
      assertEquals(404, Api.send(a, "POST", "/api/v1/runs",
          "{\"kind\":\"purge-queues\",\"clusterId\":\"00000000-0000-0000-0000-000000000000\",\"params\":{\"vhost\":\"/\",\"pattern\":\"x\"}}").status());

      m.partition("rabbit@node1", "rabbit@node3");
      Await.until("split-brain verdict recorded", Duration.ofSeconds(10),
          () -> Api.get(b, "/api/v1/clusters/" + id + "/state").get("splitBrain").asBoolean());
      Api.Reply refused = Api.send(b, "POST", "/api/v1/runs", "{\"kind\":\"purge-queues\",\"clusterId\":\"" + id
          + "\",\"params\":{\"vhost\":\"/\",\"pattern\":\".*\"}}");
      assertEquals(409, refused.status(), refused.body());
    }
  }

  @Test
  void aStopRequestedThroughBStopsARunExecutingOnA() throws Exception {
    try (FakeRabbit broker = new FakeRabbit()) {
      StudioProcess a = replicas.start(pg, "stop-a", fast()).awaitReady(Duration.ofSeconds(60));
      StudioProcess b = replicas.start(pg, "stop-b", fast()).awaitReady(Duration.ofSeconds(60));
      FakeRabbit.Model m = broker.cluster("slow").slowActions(100);
      for (int i = 0; i < 60; i++) m.queue("/", "q" + i, 1);
      String id = cluster(broker, a, "slow");
      String run = start(a, "purge-queues", id, "{\"vhost\":\"/\",\"pattern\":\"q.*\"}");
      Await.until("progress", Duration.ofSeconds(20), () -> Api.get(b, "/api/v1/runs/" + run).get("done").asInt() > 3);
      long asked = System.nanoTime();
      assertEquals(202, Api.send(b, "POST", "/api/v1/runs/" + run + "/stop", null).status());
      JsonNode stopped = awaitState(b, run, "stopped");
      System.out.printf("stop through B to stopped on A: %.2f s%n", seconds(asked));
      assertTrue(stopped.get("done").asInt() < 60, stopped.toString());
      assertEquals(stopped.get("done").asLong(), m.purges(), "progress is exact: one purge per item done");
      assertEquals(a.get("/livez").body().replaceAll(".*\"replica\":\"([^\"]+)\".*", "$1"), stopped.get("replicaId").asText());
    }
  }

  @Test
  void drainInterruptsRunsPastTheGraceAndRecoveryOnlyTouchesGoneReplicas() throws Exception {
    try (FakeRabbit broker = new FakeRabbit()) {
      StudioProcess a = replicas.start(pg, "drain-run-a", fast()).awaitReady(Duration.ofSeconds(60));
      StudioProcess b = replicas.start(pg, "drain-run-b", fast()).awaitReady(Duration.ofSeconds(60));
      FakeRabbit.Model m = broker.cluster("long").slowActions(200);
      for (int i = 0; i < 40; i++) m.queue("/", "q" + i, 1);
      String id = cluster(broker, a, "long");

      // SIGTERM during a long run: it gets the grace (1 s), then is recorded interrupted with its progress
      String onA = start(a, "purge-queues", id, "{\"vhost\":\"/\",\"pattern\":\"q.*\"}");
      Await.until("progress", Duration.ofSeconds(20), () -> Api.get(b, "/api/v1/runs/" + onA).get("done").asInt() > 1);
      a.signal("TERM");
      assertEquals(0, a.awaitExit(Duration.ofSeconds(40)), "a drained replica exits 0");
      JsonNode interrupted = Api.get(b, "/api/v1/runs/" + onA);
      assertEquals("interrupted", interrupted.get("state").asText(), interrupted.toString());
      int done = interrupted.get("done").asInt();
      assertTrue(done > 0 && done < 40, interrupted.toString());
      assertEquals(done, m.purges(), "the recorded progress is what the broker saw");

      // SIGKILL: recovery on B interrupts the dead replica's run and leaves B's own running run alone
      StudioProcess c = replicas.start(pg, "drain-run-c", fast()).awaitReady(Duration.ofSeconds(60));
      String onC = start(c, "purge-queues", id, "{\"vhost\":\"/\",\"pattern\":\"q.*\"}");
      String onB = start(b, "purge-queues", id, "{\"vhost\":\"/\",\"pattern\":\"q.*\"}");
      Await.until("both running", Duration.ofSeconds(20), () -> Api.get(b, "/api/v1/runs/" + onC).get("done").asInt() > 0
          && Api.get(b, "/api/v1/runs/" + onB).get("done").asInt() > 0);
      long killed = System.nanoTime();
      c.signal("KILL");
      awaitState(b, onC, "interrupted");
      System.out.printf("run of a SIGKILLed replica recorded interrupted after: %.2f s%n", seconds(killed));
      assertEquals("running", Api.get(b, "/api/v1/runs/" + onB).get("state").asText(), "a live replica's run is untouched");
      Api.send(b, "POST", "/api/v1/runs/" + onB + "/stop", null);
      awaitState(b, onB, "stopped");
    }
  }
}
