package dev.studio.broker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.studio.cluster.Cluster;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The RabbitMQ management HTTP API subset Studio uses, for one cluster, through the JDK's HTTP
 * client. Calls time out, and at most {@code maxConcurrent} run at once per cluster on this replica
 * (so a slow broker cannot absorb every thread, and a replica never floods one broker).
 */
public final class BrokerClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PAGE_SIZE = 500;

  /** The broker answered with an error status, or could not be reached. */
  public static final class BrokerException extends IOException {
    public BrokerException(String message) {
      super(message);
    }
  }

  private final HttpClient http;
  private final Cluster cluster;
  private final String replicaId;
  private final Duration timeout;
  private final Semaphore permits;
  private volatile boolean closed;

  public BrokerClient(HttpClient http, Cluster cluster, String replicaId, Duration timeout, int maxConcurrent) {
    this.http = http;
    this.cluster = cluster;
    this.replicaId = replicaId;
    this.timeout = timeout;
    this.permits = new Semaphore(maxConcurrent);
  }

  public static HttpClient newHttpClient(Duration connectTimeout) {
    return HttpClient.newBuilder().connectTimeout(connectTimeout).version(HttpClient.Version.HTTP_1_1).build();
  }

  public JsonNode overview() throws IOException, InterruptedException {
    return get("/api/overview");
  }

  public JsonNode nodes() throws IOException, InterruptedException {
    return get("/api/nodes");
  }

  /** Every queue (of one vhost, or all when {@code vhost} is null), following the API's paging. */
  public List<JsonNode> queues(String vhost) throws IOException, InterruptedException {
    List<JsonNode> all = new ArrayList<>();
    String base = vhost == null ? "/api/queues" : "/api/queues/" + enc(vhost);
    for (int page = 1; page <= 10_000; page++) {
      JsonNode body = get(base + "?page=" + page + "&page_size=" + PAGE_SIZE);
      body.path("items").forEach(all::add);
      if (page >= body.path("page_count").asInt(1)) break;
    }
    return all;
  }

  public void purge(String vhost, String queue) throws IOException, InterruptedException {
    send("DELETE", "/api/queues/" + enc(vhost) + "/" + enc(queue) + "/contents");
  }

  public void deleteQueue(String vhost, String queue) throws IOException, InterruptedException {
    send("DELETE", "/api/queues/" + enc(vhost) + "/" + enc(queue));
  }

  private JsonNode get(String path) throws IOException, InterruptedException {
    return JSON.readTree(send("GET", path));
  }

  /**
   * No further calls: the owner of this cluster stopped (lease lost or released). Work still running
   * on a blocking thread must not reach the broker after the next owner has started.
   */
  public void close() {
    closed = true;
  }

  public boolean isClosed() {
    return closed;
  }

  private String send(String method, String path) throws IOException, InterruptedException {
    if (closed) throw new BrokerException("the owner of " + cluster.name() + " has stopped; no more calls");
    if (!permits.tryAcquire(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new BrokerException("too many concurrent calls to " + cluster.name());
    }
    try {
      HttpRequest req = HttpRequest.newBuilder(URI.create(cluster.managementUrl() + path)).timeout(timeout)
          .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
              (cluster.username() + ":" + PasswordRef.resolve(cluster.passwordRef())).getBytes(StandardCharsets.UTF_8)))
          .header("X-Studio-Replica", replicaId)
          .method(method, HttpRequest.BodyPublishers.noBody()).build();
      HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() >= 300) {
        throw new BrokerException(method + " " + path + " on " + cluster.name() + " answered " + r.statusCode());
      }
      return r.body();
    } finally {
      permits.release();
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
