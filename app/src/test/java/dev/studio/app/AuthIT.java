package dev.studio.app;

import static dev.studio.app.ItSupport.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.testing.Await;
import dev.studio.testing.Publish;
import dev.studio.testing.SseClient;
import dev.studio.testing.StudioProcess;
import dev.studio.testing.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Invariant 12 and the rest of issue 7 on two real replicas: tokens, roles, tickets, idempotency, limits, audit. */
class AuthIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @RegisterExtension final Replicas replicas = new Replicas();

  private List<StudioProcess> two() throws Exception {
    StudioProcess a = replicas.start(pg, "auth-a", b -> b.prop("studio.auth.stream-recheck", "4s"));
    StudioProcess b = replicas.start(pg, "auth-b", x -> x.prop("studio.auth.stream-recheck", "4s"));
    a.awaitReady(Duration.ofSeconds(90));
    b.awaitReady(Duration.ofSeconds(90));
    return List.of(a, b);
  }

  @Test
  void aTokenRevokedThroughAIsRefusedByBAtOnceAndItsStreamOnBIsCutWithin5s() throws Exception {
    List<StudioProcess> ab = two();
    StudioProcess a = ab.get(0);
    StudioProcess b = ab.get(1);
    JsonNode viewer = Api.createToken(a, "viewer on b", "viewer");
    String secret = viewer.get("token").asText();
    assertEquals(200, Api.send(b, secret, "GET", "/api/v1/clusters", null).status());
    try (SseClient stream = new SseClient(b.port(), "news", "0", secret)) {
      Await.until("the stream on B is open", Duration.ofSeconds(10), () -> stream.status() == 200);
      long t0 = System.nanoTime();
      Api.Reply revoked = Api.send(a, "DELETE", "/api/v1/tokens/" + viewer.get("id").asText(), null);
      assertEquals(204, revoked.status(), revoked.body());
      long t1 = System.nanoTime();
      Api.Reply onB = Api.send(b, secret, "GET", "/api/v1/clusters", null);
      double refused = seconds(t1);
      assertEquals(401, onB.status(), "B's very next request with the revoked token: " + onB.body());
      List<SseClient.Event> got = stream.until(e -> e.event().equals("revoked"), Duration.ofSeconds(5));
      SseClient.Event last = got.get(got.size() - 1);
      double cut = seconds(t0);
      Await.until("B closes the stream", Duration.ofSeconds(5), stream::ended);
      System.out.printf("revocation through A (%.1f ms round trip): B's next request refused, answered in %.1f ms; "
          + "stream on B cut %.0f ms after the revoke was sent%n", (t1 - t0) / 1e6, refused * 1000, cut * 1000);
      assertEquals("revoked", last.event());
      assertTrue(cut <= 5.0, "stream cut after " + cut + " s");
    }
  }

  @Test
  void anOpenStreamIsCutByThePeriodicRecheckEvenWithoutTheBusSignal() throws Exception {
    // the revocation happens straight in the database (as a restore or a script would): no bus signal
    StudioProcess a = replicas.start(pg, "recheck", x -> x);
    a.awaitReady(Duration.ofSeconds(90));
    JsonNode viewer = Api.createToken(a, "recheck viewer", "viewer");
    try (SseClient stream = new SseClient(a.port(), "news", "0", viewer.get("token").asText())) {
      Await.until("the stream is open", Duration.ofSeconds(10), () -> stream.status() == 200);
      long t0 = System.nanoTime();
      try (var c = pg.connect(); var st = c.prepareStatement("UPDATE api_token SET revoked_at = now() WHERE id = ?::uuid")) {
        st.setString(1, viewer.get("id").asText());
        assertEquals(1, st.executeUpdate());
      }
      stream.until(e -> e.event().equals("revoked"), Duration.ofSeconds(5));
      System.out.printf("revoked in the database without a signal: stream cut after %.0f ms (default recheck 2 s)%n", seconds(t0) * 1000);
    }
  }

  @Test
  void theSameIdempotentPostToAThenBActsOnceAndADifferentBodyIs422() throws Exception {
    List<StudioProcess> ab = two();
    Path pw = Files.createTempFile("pw", "");
    String body = "{\"name\":\"idem\",\"managementUrl\":\"http://127.0.0.1:1/x\",\"username\":\"u\",\"passwordRef\":\"file:" + pw + "\"}";
    Api.Reply first = Api.send(ab.get(0), StudioProcess.ADMIN_TOKEN, "POST", "/api/v1/clusters", body, "Idempotency-Key", "k-1");
    Api.Reply second = Api.send(ab.get(1), StudioProcess.ADMIN_TOKEN, "POST", "/api/v1/clusters", body, "Idempotency-Key", "k-1");
    assertEquals(201, first.status(), first.body());
    assertEquals(201, second.status(), second.body());
    assertEquals(first.json().get("id"), second.json().get("id"));
    assertEquals("true", second.header("Idempotent-Replayed"));
    assertEquals(1, count("SELECT count(*) FROM cluster WHERE name = 'idem'"));
    Api.Reply other = Api.send(ab.get(1), StudioProcess.ADMIN_TOKEN, "POST", "/api/v1/clusters",
        body.replace("idem", "idem2"), "Idempotency-Key", "k-1");
    assertEquals(422, other.status(), other.body());
    assertEquals(0, count("SELECT count(*) FROM cluster WHERE name = 'idem2'"));

    // the same key raced through both replicas at once: one acts, the rest replay or are told to retry
    String raced = body.replace("idem", "raced");
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Api.Reply>> replies = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        StudioProcess via = ab.get(i % 2);
        replies.add(pool.submit((Callable<Api.Reply>) () ->
            Api.send(via, StudioProcess.ADMIN_TOKEN, "POST", "/api/v1/clusters", raced, "Idempotency-Key", "k-race")));
      }
      Set<String> ids = new HashSet<>();
      for (Future<Api.Reply> f : replies) {
        Api.Reply r = f.get();
        assertTrue(r.status() == 201 || r.status() == 409, r.status() + " " + r.body());
        if (r.status() == 201) ids.add(r.json().get("id").asText());
      }
      assertEquals(1, ids.size(), "every 201 names the one cluster: " + ids);
    } finally {
      pool.shutdownNow();
    }
    assertEquals(1, count("SELECT count(*) FROM cluster WHERE name = 'raced'"));

    // a run started twice with one key starts once; the token's secret is never kept for a replay
    String cluster = first.json().get("id").asText();
    String run = "{\"kind\":\"purge-queues\",\"clusterId\":\"" + cluster + "\",\"params\":{\"vhost\":\"/\",\"pattern\":\"x\",\"dryRun\":true}}";
    Api.Reply r1 = Api.send(ab.get(0), StudioProcess.ADMIN_TOKEN, "POST", "/api/v1/runs", run, "Idempotency-Key", "run-1");
    Api.Reply r2 = Api.send(ab.get(1), StudioProcess.ADMIN_TOKEN, "POST", "/api/v1/runs", run, "Idempotency-Key", "run-1");
    assertEquals(201, r1.status(), r1.body());
    assertEquals(201, r2.status(), r2.body());
    assertEquals(r1.json().get("id"), r2.json().get("id"));
    assertEquals("true", r2.header("Idempotent-Replayed"));
    assertEquals(1, count("SELECT count(*) FROM bulk_run"), "the run started once");
    String tokenBody = "{\"name\":\"once\",\"role\":\"viewer\"}";
    Api.Reply t1 = Api.send(ab.get(0), StudioProcess.ADMIN_TOKEN, "POST", "/api/v1/tokens", tokenBody, "Idempotency-Key", "tok-1");
    Api.Reply t2 = Api.send(ab.get(1), StudioProcess.ADMIN_TOKEN, "POST", "/api/v1/tokens", tokenBody, "Idempotency-Key", "tok-1");
    assertEquals(201, t2.status());
    assertEquals(t1.json().get("id"), t2.json().get("id"));
    assertTrue(t2.json().get("token").isNull(), "a replay never repeats a secret: " + t2.body());
    assertEquals(0, count("SELECT count(*) FROM idempotency_key WHERE response::text LIKE '%studio_%'"));

    // audit: one creation of 'idem', by the admin token, with the replica that did it
    JsonNode entries = Api.get(ab.get(1), "/api/v1/audit?limit=1000").get("entries");
    int creations = 0;
    for (JsonNode e : entries) {
      if (e.get("action").asText().equals("cluster.create") && e.get("target").asText().equals(first.json().get("id").asText())) {
        creations++;
        assertEquals("admin (STUDIO_ADMIN_TOKEN)", e.get("tokenName").asText());
        assertEquals(ItSupport.replicaId(ab.get(0)), e.get("replicaId").asText());
        assertEquals(201, e.get("status").asInt());
      }
    }
    assertEquals(1, creations, entries.toString());
  }

  @Test
  void rolesAreEnforcedAndNoTokenIs401EverywhereUnderApi() throws Exception {
    StudioProcess a = replicas.start(pg, "roles", x -> x);
    a.awaitReady(Duration.ofSeconds(90));
    String viewer = Api.createToken(a, "viewer", "viewer").get("token").asText();
    String operator = Api.createToken(a, "operator", "operator").get("token").asText();
    String zero = "00000000-0000-0000-0000-000000000000";
    String run = "{\"kind\":\"purge-queues\",\"clusterId\":\"" + zero
        + "\",\"params\":{\"vhost\":\"/\",\"pattern\":\"x\",\"dryRun\":true}}";

    assertEquals(403, Api.send(a, viewer, "POST", "/api/v1/runs", run).status(), "viewer cannot start runs");
    assertEquals(403, Api.send(a, viewer, "POST", "/api/v1/runs/" + zero + "/stop", null).status());
    assertEquals(403, Api.send(a, viewer, "POST", "/api/v1/clusters", "{}").status());
    assertEquals(403, Api.send(a, viewer, "DELETE", "/api/v1/clusters/" + zero, null).status());
    assertEquals(200, Api.send(a, viewer, "GET", "/api/v1/clusters", null).status());
    assertEquals(200, Api.send(a, viewer, "GET", "/api/v1/runs", null).status());
    assertEquals(201, Api.send(a, viewer, "POST", "/api/v1/stream/tickets", null).status());
    assertEquals(403, Api.send(a, operator, "POST", "/api/v1/tokens", "{\"name\":\"x\",\"role\":\"admin\"}").status(),
        "operator cannot manage tokens");
    assertEquals(403, Api.send(a, operator, "GET", "/api/v1/tokens", null).status());
    assertEquals(403, Api.send(a, operator, "DELETE", "/api/v1/tokens/" + zero, null).status());
    assertEquals(403, Api.send(a, operator, "GET", "/api/v1/audit", null).status());
    assertEquals(403, Api.send(a, operator, "POST", "/api/v1/streams/news/frames", "{}").status(), "announcements are admin's");
    assertEquals(404, Api.send(a, operator, "POST", "/api/v1/runs", run).status(), "operator may start runs (no such cluster)");
    assertEquals(201, Api.send(a, StudioProcess.ADMIN_TOKEN, "POST", "/api/v1/streams/news/frames", "{}").status());

    String[][] routes = {{"GET", "/api/v1/replicas"}, {"GET", "/api/v1/clusters"}, {"POST", "/api/v1/clusters"},
        {"GET", "/api/v1/clusters/" + zero}, {"PUT", "/api/v1/clusters/" + zero}, {"DELETE", "/api/v1/clusters/" + zero},
        {"GET", "/api/v1/clusters/" + zero + "/state"}, {"GET", "/api/v1/leases"}, {"GET", "/api/v1/events"},
        {"GET", "/api/v1/runs"}, {"POST", "/api/v1/runs"}, {"GET", "/api/v1/runs/" + zero},
        {"POST", "/api/v1/runs/" + zero + "/stop"}, {"GET", "/api/v1/streams/news/frames"},
        {"POST", "/api/v1/streams/news/frames"}, {"GET", "/api/v1/stream?topics=news"}, {"POST", "/api/v1/stream/tickets"},
        {"GET", "/api/v1/tokens"}, {"POST", "/api/v1/tokens"}, {"DELETE", "/api/v1/tokens/" + zero},
        {"GET", "/api/v1/audit"}, {"GET", "/api/v1/no-such-route"}, {"GET", "/api/v2/anything"}};
    for (String[] route : routes) {
      String body = route[0].equals("GET") || route[0].equals("DELETE") ? null : "{}";
      Api.Reply none = Api.send(a, null, route[0], route[1], body);
      assertEquals(401, none.status(), route[0] + " " + route[1] + " without a token: " + none.body());
      assertEquals("Bearer realm=\"studio\"", none.header("WWW-Authenticate"));
      assertEquals(401, Api.send(a, "studio_not-a-real-token-at-all", route[0], route[1], body).status(), route[1]);
    }
    for (String open : List.of("/livez", "/readyz", "/metrics")) {
      assertEquals(200, Api.send(a, null, "GET", open, null).status(), open + " needs no token");
    }
    // the denials are in the audit log, with who tried
    JsonNode entries = Api.get(a, "/api/v1/audit?limit=1000").get("entries");
    assertTrue(entries.toString().contains("\"tokenName\":\"viewer\",\"role\":\"viewer\",\"action\":\"run.start\""), entries.toString());
  }

  @Test
  void aTicketFromAOpensAStreamOnBAndExpires() throws Exception {
    StudioProcess a = replicas.start(pg, "ticket-a", x -> x.prop("studio.auth.ticket-ttl", "2s"));
    StudioProcess b = replicas.start(pg, "ticket-b", x -> x.prop("studio.auth.ticket-ttl", "2s"));
    a.awaitReady(Duration.ofSeconds(90));
    b.awaitReady(Duration.ofSeconds(90));
    String viewer = Api.createToken(a, "browser", "viewer").get("token").asText();
    Api.Reply issued = Api.send(a, viewer, "POST", "/api/v1/stream/tickets", null);
    assertEquals(201, issued.status(), issued.body());
    String ticket = issued.json().get("ticket").asText();
    java.time.Instant expires = java.time.Instant.parse(issued.json().get("expiresAt").asText());
    assertTrue(expires.isAfter(java.time.Instant.now().minusSeconds(1))
        && expires.isBefore(java.time.Instant.now().plusSeconds(4)), "a 2 s ticket expires at " + expires);
    assertFalse(ticket.contains(viewer), "the ticket does not carry the token");
    try (SseClient browser = new SseClient(b.port(), "tk&ticket=" + ticket, "0", null)) {
      long id = Publish.frame(a, "tk", "{\"hello\":1}");
      List<SseClient.Event> got = browser.until(x -> x.id() != null && x.idAsLong() == id, Duration.ofSeconds(10));
      assertEquals("tk", got.get(got.size() - 1).event());
    }
    String tampered = ticket.substring(0, ticket.length() - 2) + (ticket.endsWith("A") ? "BB" : "AA");
    assertEquals(401, streamStatus(b, "tk&ticket=" + tampered));
    assertEquals(401, Api.send(b, null, "GET", "/api/v1/clusters?ticket=" + ticket, null).status(), "tickets open streams only");
    Await.until("the ticket expires", Duration.ofSeconds(10), () -> streamStatus(b, "tk&ticket=" + ticket) == 401);
  }

  @Test
  void aTokenOverItsRateLimitGets429WithRetryAfterAndOtherTokensDoNot() throws Exception {
    StudioProcess a = replicas.start(pg, "limits", x -> x.prop("studio.auth.rate-limit.per-second", "1")
        .prop("studio.auth.rate-limit.burst", "5"));
    a.awaitReady(Duration.ofSeconds(90));
    String busy = Api.createToken(a, "busy", "viewer").get("token").asText();
    String calm = Api.createToken(a, "calm", "viewer").get("token").asText();
    Api.Reply limited = null;
    for (int i = 0; i < 20 && limited == null; i++) {
      Api.Reply r = Api.send(a, busy, "GET", "/api/v1/clusters", null);
      if (r.status() == 429) limited = r;
      else assertEquals(200, r.status(), r.body());
    }
    assertNotNull(limited, "20 requests at once never hit a limit of 5");
    assertTrue(Integer.parseInt(limited.header("Retry-After")) >= 1, limited.headers().map().toString());
    assertEquals(200, Api.send(a, calm, "GET", "/api/v1/clusters", null).status(), "limits are per token");
    Await.until("the bucket refills", Duration.ofSeconds(10), () -> Api.send(a, busy, "GET", "/api/v1/clusters", null).status() == 200);
  }

  @Test
  void theFirstStartPrintsOneAdminTokenAndTheCliManagesTokens() throws Exception {
    StudioProcess first = replicas.start(pg, "first", x -> x.env("STUDIO_ADMIN_TOKEN", ""));
    first.awaitReady(Duration.ofSeconds(90));
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("STUDIO_ADMIN_TOKEN=(studio_[A-Za-z0-9_-]+)").matcher(first.log());
    assertTrue(m.find(), first.log());
    String printed = m.group(1);
    assertEquals(200, Api.send(first, printed, "GET", "/api/v1/tokens", null).status());
    assertEquals(1, count("SELECT count(*) FROM api_token WHERE hash = sha256(convert_to('" + printed + "', 'UTF8'))"),
        "the token is stored as its SHA-256 hash");
    StudioProcess second = replicas.start(pg, "second", x -> x.env("STUDIO_ADMIN_TOKEN", ""));
    second.awaitReady(Duration.ofSeconds(90));
    assertFalse(second.log().contains("First start"), "a second start prints nothing");

    StudioProcess create = replicas.track(cli("token", "create", "--name", "from cli", "--role", "operator"));
    assertEquals(0, create.awaitExit(Duration.ofSeconds(60)), create.log());
    m = java.util.regex.Pattern.compile("token: (studio_[A-Za-z0-9_-]+)").matcher(create.log());
    assertTrue(m.find(), create.log());
    String cliToken = m.group(1);
    assertEquals(200, Api.send(first, cliToken, "GET", "/api/v1/runs", null).status());
    String id = java.util.regex.Pattern.compile("id: +([0-9a-f-]{36})").matcher(create.log()).results().findFirst().orElseThrow().group(1);
    StudioProcess list = replicas.track(cli("token", "list"));
    assertEquals(0, list.awaitExit(Duration.ofSeconds(60)), list.log());
    assertTrue(list.log().contains(id) && list.log().contains("from cli"), list.log());
    assertFalse(list.log().contains(cliToken), "list never shows a secret");
    StudioProcess revoke = replicas.track(cli("token", "revoke", id));
    assertEquals(0, revoke.awaitExit(Duration.ofSeconds(60)), revoke.log());
    assertEquals(401, Api.send(second, cliToken, "GET", "/api/v1/runs", null).status());
    StudioProcess bad = replicas.track(cli("token", "create", "--name", "x", "--role", "root"));
    assertEquals(2, bad.awaitExit(Duration.ofSeconds(60)), bad.log());
  }

  /** The status a stream request gets (a stream that opens never ends, so read the status line only). */
  private static int streamStatus(StudioProcess p, String topicsAndTicket) throws Exception {
    try (SseClient c = new SseClient(p.port(), topicsAndTicket, null, null)) {
      return Await.until("a status line", Duration.ofSeconds(10), c::status, s -> s != 0);
    }
  }

  private StudioProcess cli(String... args) throws java.io.IOException {
    return StudioProcess.builder("cli-" + args[1]).database(pg.url(), pg.user(), pg.password()).args(args).start();
  }

  private static long count(String sql) throws Exception {
    try (var c = pg.connect(); var st = c.createStatement(); var rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
