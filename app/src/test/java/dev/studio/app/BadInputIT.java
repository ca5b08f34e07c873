package dev.studio.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.testing.SseClient;
import dev.studio.testing.StudioProcess;
import dev.studio.testing.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every route fed malformed, oversized, mistyped, injected and out-of-range input, through two
 * replicas: each answer is a clear problem (4xx, {@code application/problem+json}, a title), never a
 * 5xx, and nothing is stored.
 */
class BadInputIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @RegisterExtension final Replicas replicas = new Replicas();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  /**
   * What bad input must not change. The audit log does record refused changes (that is its job), and
   * the known cluster's owner publishes its own frames (broker.events, cluster.state) meanwhile.
   */
  private static final Map<String, String> STORED = Map.of(
      "clusters", "SELECT count(*) FROM cluster",
      "runs", "SELECT count(*) FROM bulk_run",
      "frames", "SELECT count(*) FROM stream_frame WHERE topic NOT IN ('broker.events', 'cluster.state')",
      "tokens", "SELECT count(*) FROM api_token",
      "idempotency keys", "SELECT count(*) FROM idempotency_key");

  /** One bad request and the statuses that are a right answer to it. */
  record Case(String method, String path, String contentType, String body, Set<Integer> expected, String... headers) {}

  @Test
  void badInputOnEveryRouteGetsAClearErrorNeverA5xxAndStoresNothing() throws Exception {
    StudioProcess a = replicas.start(pg, "bad-a", x -> x);
    StudioProcess b = replicas.start(pg, "bad-b", x -> x);
    a.awaitReady(Duration.ofSeconds(90));
    b.awaitReady(Duration.ofSeconds(90));
    Path pw = Files.createTempFile("pw", "");
    String cluster = Api.createCluster(a, "known", "http://127.0.0.1:1/known", pw.toString());
    Map<String, Long> before = counts();

    String json = "application/json";
    String unknown = UUID.randomUUID().toString();
    String big = "{\"name\":\"" + "x".repeat(2_000_000) + "\"}";
    String deep = "[".repeat(100_000) + "]".repeat(100_000);
    String valid = "{\"name\":\"%s\",\"managementUrl\":\"http://127.0.0.1:1/x\",\"username\":\"u\",\"passwordRef\":\"file:" + pw + "\"}";
    String sqlName = "x'; DROP TABLE cluster; --";
    List<Case> cases = new ArrayList<>(List.of(
        // clusters
        new Case("POST", "/api/v1/clusters", "text/plain", valid.formatted("plain"), Set.of(415)),
        new Case("POST", "/api/v1/clusters", null, valid.formatted("untyped"), Set.of(415)),
        new Case("POST", "/api/v1/clusters", json, "{\"name\":", Set.of(400)),
        new Case("POST", "/api/v1/clusters", json, "[1,2]", Set.of(422)),
        new Case("POST", "/api/v1/clusters", json, "", Set.of(400)),
        new Case("POST", "/api/v1/clusters", json, big, Set.of(413)),
        new Case("POST", "/api/v1/clusters", json, deep, Set.of(400)),
        new Case("POST", "/api/v1/clusters", json, valid.formatted(sqlName.replace("'", "\\u0027")), Set.of(422)),
        new Case("POST", "/api/v1/clusters", json, valid.formatted("a\\u0001b"), Set.of(422)),
        new Case("POST", "/api/v1/clusters", json, valid.formatted("n".repeat(10_000)), Set.of(422)),
        new Case("POST", "/api/v1/clusters", json, valid.formatted("ok").replace("http://127.0.0.1:1/x", "javascript:alert(1)"), Set.of(422)),
        new Case("POST", "/api/v1/clusters", json, valid.formatted("ok").replace("file:" + pw, "hunter2"), Set.of(422)),
        new Case("POST", "/api/v1/clusters", json, valid.formatted("known"), Set.of(409)),
        new Case("POST", "/api/v1/clusters", json, valid.formatted("keyed"), Set.of(400), "Idempotency-Key", "k".repeat(300)),
        new Case("POST", "/api/v1/clusters", json, valid.formatted("keyed"), Set.of(400), "Idempotency-Key", "has space"),
        new Case("PATCH", "/api/v1/clusters", json, "{}", Set.of(405)),
        new Case("PUT", "/api/v1/clusters/" + cluster, json, "{}", Set.of(422)),
        new Case("PUT", "/api/v1/clusters/" + cluster, json, "{\"name\":", Set.of(400)),
        new Case("PUT", "/api/v1/clusters/" + unknown, json, valid.formatted("ghost"), Set.of(404)),
        new Case("PUT", "/api/v1/clusters/not-a-uuid", json, valid.formatted("ghost"), Set.of(400)),
        new Case("GET", "/api/v1/clusters/%27%20OR%201%3D1%20--", null, null, Set.of(400)),
        new Case("GET", "/api/v1/clusters/" + unknown, null, null, Set.of(404)),
        new Case("GET", "/api/v1/clusters/" + unknown + "/state", null, null, Set.of(404)),
        new Case("GET", "/api/v1/clusters/%00/state", null, null, Set.of(400)),
        new Case("DELETE", "/api/v1/clusters/" + unknown, null, null, Set.of(404)),
        new Case("DELETE", "/api/v1/clusters/123", null, null, Set.of(400)),
        new Case("GET", "/api/v1/clusters?limit=99999999999999", null, null, Set.of(400)),
        new Case("GET", "/api/v1/clusters?limit=-1", null, null, Set.of(400)),
        new Case("GET", "/api/v1/clusters?limit=0", null, null, Set.of(400)),
        new Case("GET", "/api/v1/clusters?limit=abc", null, null, Set.of(400)),
        new Case("GET", "/api/v1/leases?limit=1e9", null, null, Set.of(400)),
        new Case("GET", "/api/v1/events?cluster=bad", null, null, Set.of(400)),
        new Case("GET", "/api/v1/events?after=-1", null, null, Set.of(400)),
        new Case("GET", "/api/v1/events?after=99999999999999999999999", null, null, Set.of(400)),
        new Case("GET", "/api/v1/events?limit=5000", null, null, Set.of(400)),
        // runs
        new Case("POST", "/api/v1/runs", json, "{}", Set.of(422)),
        new Case("POST", "/api/v1/runs", "text/plain", "{}", Set.of(415)),
        new Case("POST", "/api/v1/runs", json, "{\"kind\":", Set.of(400)),
        new Case("POST", "/api/v1/runs", json, "{\"kind\":\"explode\",\"clusterId\":\"" + cluster + "\"}", Set.of(422)),
        new Case("POST", "/api/v1/runs", json, "{\"kind\":\"purge-queues\",\"clusterId\":\"nope\"}", Set.of(400)),
        new Case("POST", "/api/v1/runs", json, "{\"kind\":\"purge-queues\",\"clusterId\":\"" + unknown
            + "\",\"params\":{\"vhost\":\"/\",\"pattern\":\"x\"}}", Set.of(404)),
        new Case("POST", "/api/v1/runs", json, "{\"kind\":\"purge-queues\",\"clusterId\":\"" + cluster
            + "\",\"params\":{\"vhost\":\"/\",\"pattern\":\"(\"}}", Set.of(422)),
        new Case("POST", "/api/v1/runs", json, "{\"kind\":\"purge-queues\",\"clusterId\":\"" + cluster + "\",\"params\":[1]}", Set.of(422)),
        new Case("POST", "/api/v1/runs", json, big, Set.of(413)),
        new Case("GET", "/api/v1/runs/abc", null, null, Set.of(400)),
        new Case("GET", "/api/v1/runs/" + unknown, null, null, Set.of(404)),
        new Case("GET", "/api/v1/runs?limit=100000", null, null, Set.of(400)),
        new Case("POST", "/api/v1/runs/" + unknown + "/stop", null, null, Set.of(404)),
        new Case("POST", "/api/v1/runs/x%27--/stop", null, null, Set.of(400)),
        // streams
        new Case("GET", "/api/v1/streams/bad!topic/frames", null, null, Set.of(400)),
        new Case("GET", "/api/v1/streams/a/frames?after=x", null, null, Set.of(400)),
        new Case("GET", "/api/v1/streams/a/frames?limit=1001", null, null, Set.of(400)),
        new Case("POST", "/api/v1/streams/" + "t".repeat(65) + "/frames", json, "{}", Set.of(400)),
        new Case("POST", "/api/v1/streams/%0A/frames", json, "{}", Set.of(400)),
        new Case("POST", "/api/v1/streams/ok/frames", json, "[1]", Set.of(400)),
        new Case("POST", "/api/v1/streams/ok/frames", json, "\"text\"", Set.of(400)),
        new Case("POST", "/api/v1/streams/ok/frames", json, "{\"a\":", Set.of(400)),
        new Case("POST", "/api/v1/streams/ok/frames", "text/plain", "{}", Set.of(415)),
        new Case("POST", "/api/v1/streams/ok/frames", json, big, Set.of(413)),
        new Case("GET", "/api/v1/stream?topics=", null, null, Set.of(400)),
        new Case("GET", "/api/v1/stream", null, null, Set.of(400)),
        new Case("GET", "/api/v1/stream?topics=a;DROP%20TABLE%20stream_frame", null, null, Set.of(400)),
        new Case("GET", "/api/v1/stream?topics=%00", null, null, Set.of(400)),
        new Case("GET", "/api/v1/stream?topics=" + java.util.stream.IntStream.range(0, 40).mapToObj(i -> "t" + i)
            .collect(java.util.stream.Collectors.joining(",")), null, null, Set.of(400)),
        // tokens, tickets, audit
        new Case("POST", "/api/v1/tokens", json, "{\"name\":\"x\",\"role\":\"root\"}", Set.of(422)),
        new Case("POST", "/api/v1/tokens", json, "{\"name\":\"a\\u0007b\",\"role\":\"viewer\"}", Set.of(422)),
        new Case("POST", "/api/v1/tokens", json, "{\"name\":5,\"role\":\"viewer\"}", Set.of(422)),
        new Case("POST", "/api/v1/tokens", json, "{\"name\":\"" + sqlName.replace("'", "\\u0027") + "\",\"role\":\"viewer\"}", Set.of(422)),
        new Case("POST", "/api/v1/tokens", json, "{\"name\":", Set.of(400)),
        new Case("POST", "/api/v1/tokens", "application/xml", "<token/>", Set.of(415)),
        new Case("DELETE", "/api/v1/tokens/x", null, null, Set.of(400)),
        new Case("DELETE", "/api/v1/tokens/" + unknown, null, null, Set.of(404)),
        new Case("GET", "/api/v1/tokens?limit=0", null, null, Set.of(400)),
        new Case("GET", "/api/v1/audit?after=abc", null, null, Set.of(400)),
        new Case("GET", "/api/v1/audit?limit=100000", null, null, Set.of(400)),
        new Case("GET", "/api/v1/replicas/extra/path", null, null, Set.of(404)),
        // credentials themselves
        new Case("GET", "/api/v1/clusters", null, null, Set.of(401), "Authorization", "Bearer " + "z".repeat(5_000)),
        // refused by the HTTP parser before any route: a plain-text 431, still no 5xx
        new Case("GET", "/api/v1/clusters", null, null, Set.of(431), "Authorization", "Bearer " + "z".repeat(10_000)),
        new Case("GET", "/api/v1/clusters", null, null, Set.of(401), "Authorization", "Basic c3R1ZGlvOnMzY3JldA=="),
        new Case("GET", "/api/v1/clusters", null, null, Set.of(401), "Authorization", "Bearer ' OR '1'='1"),
        new Case("GET", "/api/v1/stream?topics=a&ticket=%00%00", null, null, Set.of(401), "Authorization", ""),
        new Case("GET", "/api/v1/stream?topics=a&ticket=" + "A".repeat(1000) + ".x", null, null, Set.of(401), "Authorization", ""),
        new Case("GET", "/api/v1/stream?topics=a&ticket=" + "A".repeat(5000) + ".x", null, null, Set.of(414), "Authorization", "")));

    List<Integer> seen = new ArrayList<>();
    for (StudioProcess via : List.of(a, b)) {
      for (Case c : cases) {
        HttpResponse<String> r = send(via, c);
        String what = via.name() + " " + c.method() + " " + abbreviate(c.path()) + " " + abbreviate(String.valueOf(c.body()));
        seen.add(r.statusCode());
        assertTrue(r.statusCode() < 500, what + " answered " + r.statusCode() + ": " + r.body());
        assertTrue(c.expected().contains(r.statusCode()), what + " answered " + r.statusCode() + ", expected " + c.expected()
            + ": " + r.body());
        if (r.statusCode() == 414 || r.statusCode() == 431) continue; // the HTTP parser's own plain-text answers
        assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse(""), what);
        JsonNode problem = ItSupport.json(r.body());
        assertEquals(r.statusCode(), problem.get("status").asInt(), what);
        assertTrue(problem.hasNonNull("title"), what + ": " + r.body());
      }
      // a Last-Event-ID that cannot be read is "no id": the stream opens and starts with a resync
      for (String badId : List.of("abc", "-5", "99999999999999999999999", "1;DROP")) {
        try (SseClient s = new SseClient(via.port(), "a", badId)) {
          SseClient.Event first = s.next(Duration.ofSeconds(10));
          assertEquals(200, s.status());
          assertEquals("resync", first.event(), "Last-Event-ID " + badId);
        }
      }
    }
    System.out.printf("bad-input suite: %d requests over 2 replicas, none 5xx; statuses %s%n", seen.size(),
        seen.stream().collect(java.util.stream.Collectors.groupingBy(s -> s, java.util.TreeMap::new,
            java.util.stream.Collectors.counting())));
    assertEquals(before, counts(), "bad input stored nothing");
  }

  private static HttpResponse<String> send(StudioProcess p, Case c) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p.port() + c.path()))
        .timeout(Duration.ofSeconds(20));
    boolean ownAuth = false;
    for (int i = 0; i + 1 < c.headers().length; i += 2) {
      if (c.headers()[i].equals("Authorization")) {
        ownAuth = true;
        if (c.headers()[i + 1].isEmpty()) continue;
      }
      b.header(c.headers()[i], c.headers()[i + 1]);
    }
    if (!ownAuth) b.header("Authorization", StudioProcess.bearer());
    if (c.contentType() != null) b.header("Content-Type", c.contentType());
    b.method(c.method(), c.body() == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(c.body()));
    // bounded: a request that opened a stream by mistake must fail the test, not hang it
    return HTTP.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString()).get(30, java.util.concurrent.TimeUnit.SECONDS);
  }

  private static String abbreviate(String s) {
    return s.length() > 60 ? s.substring(0, 60) + "…(" + s.length() + ")" : s;
  }

  private static Map<String, Long> counts() throws Exception {
    Map<String, Long> out = new LinkedHashMap<>();
    try (var c = pg.connect(); var st = c.createStatement()) {
      for (var e : new java.util.TreeMap<>(STORED).entrySet()) {
        try (var rs = st.executeQuery(e.getValue())) {
          rs.next();
          out.put(e.getKey(), rs.getLong(1));
        }
      }
    }
    return out;
  }
}
