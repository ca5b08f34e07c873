package dev.studio.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.testing.Await;
import dev.studio.testing.FakeRabbit;
import dev.studio.testing.StudioProcess;
import dev.studio.testing.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The clusters API through two replicas: validation, no credentials echoed, state and events read anywhere. */
class ClustersApiIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @RegisterExtension final Replicas replicas = new Replicas();

  @Test
  void clustersAreManagedThroughAnyReplicaAndTheirScrapesReadThroughAnother() throws Exception {
    try (FakeRabbit broker = new FakeRabbit()) {
      Path pw = Files.createTempFile("pw", "");
      Files.writeString(pw, FakeRabbit.PASSWORD);
      StudioProcess a = replicas.start(pg, "api-a", b -> OwnershipIT.fast().apply(b)).awaitReady(Duration.ofSeconds(60));
      StudioProcess b = replicas.start(pg, "api-b", x -> OwnershipIT.fast().apply(x)).awaitReady(Duration.ofSeconds(60));
      broker.cluster("shop").queue("/", "orders", 3);

      String body = "{\"name\":\"shop\",\"managementUrl\":\"" + broker.url("shop") + "\",\"username\":\"studio\","
          + "\"passwordRef\":\"file:" + pw + "\",\"settings\":{\"team\":\"payments\"}}";
      Api.Reply created = Api.send(a, "POST", "/api/v1/clusters", body);
      assertEquals(201, created.status(), created.body());
      assertFalse(created.body().contains("passwordRef") || created.body().contains(pw.toString()), "never echoed");
      String id = created.json().get("id").asText();
      assertEquals("payments", Api.get(b, "/api/v1/clusters/" + id).get("settings").get("team").asText());
      assertEquals(1, Api.get(b, "/api/v1/clusters").get("clusters").size());

      assertEquals(409, Api.send(b, "POST", "/api/v1/clusters", body).status(), "duplicate name");
      Api.Reply invalid = Api.send(a, "POST", "/api/v1/clusters",
          "{\"name\":\"bad name!\",\"managementUrl\":\"ftp://x\",\"username\":\"\",\"passwordRef\":\"hunter2\"}");
      assertEquals(422, invalid.status(), invalid.body());
      assertTrue(invalid.body().contains("managementUrl") && invalid.body().contains("passwordRef"), invalid.body());
      assertTrue(invalid.body().contains("application/problem+json") || invalid.body().contains("\"status\":422"));
      assertEquals(400, Api.send(a, "POST", "/api/v1/clusters", "{not json").status());
      assertEquals(415, Api.send(a, "POST", "/api/v1/clusters", null).status());
      assertEquals(404, Api.send(a, "GET", "/api/v1/clusters/00000000-0000-0000-0000-000000000000", null).status());
      assertEquals(400, Api.send(a, "GET", "/api/v1/clusters/not-an-id", null).status());
      assertEquals(1, Api.get(a, "/api/v1/clusters").get("clusters").size(), "nothing stored by bad requests");

      // the owner scrapes; the other replica serves what it wrote
      JsonNode state = Await.until("both tiers scraped", Duration.ofSeconds(20),
          () -> Api.get(b, "/api/v1/clusters/" + id + "/state"), s -> s.get("tiers").has("a") && s.get("tiers").has("b"));
      assertEquals(3, state.get("nodes").size());
      assertFalse(state.get("splitBrain").asBoolean());

      broker.cluster("shop").queue("/", "refunds", 0).removeQueue("/", "orders");
      JsonNode events = Await.until("queue events", Duration.ofSeconds(20),
          () -> Api.get(a, "/api/v1/events?cluster=" + id).get("events"), e -> e.size() >= 2);
      String kinds = events.toString();
      assertTrue(kinds.contains("queue.created") && kinds.contains("refunds") && kinds.contains("queue.deleted"), kinds);
      long firstSeq = events.get(0).get("seq").asLong();
      assertEquals(events.size() - 1, Api.get(b, "/api/v1/events?cluster=" + id + "&after=" + firstSeq).get("events").size());

      Api.Reply updated = Api.send(b, "PUT", "/api/v1/clusters/" + id, body.replace("\"studio\"", "\"studio\"")
          .replace("payments", "billing"));
      assertEquals(200, updated.status(), updated.body());
      assertEquals("billing", Api.get(a, "/api/v1/clusters/" + id).get("settings").get("team").asText());

      assertEquals(204, Api.send(a, "DELETE", "/api/v1/clusters/" + id, null).status());
      assertEquals(404, Api.send(b, "GET", "/api/v1/clusters/" + id, null).status());
      Await.until("its lease is gone", Duration.ofSeconds(5), () -> Api.get(b, "/api/v1/leases").get("leases").size() == 0);
    }
  }
}
