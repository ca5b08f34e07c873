package dev.studio.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test broker: a real HTTP server speaking the RabbitMQ management API subset Studio uses, for
 * many clusters at once ({@code http://127.0.0.1:PORT/<cluster>/api/…}), with scriptable state
 * (nodes down, partitions, queues) and every request counted per cluster and per caller (the
 * {@code X-Studio-Replica} header), so "scraped by exactly one replica" is measured, not assumed.
 */
public final class FakeRabbit implements AutoCloseable {
  public static final String USER = "studio";
  public static final String PASSWORD = "s3cret";

  /** One request as the broker saw it. */
  public record Request(String cluster, String caller, String method, String path, long atNanos) {}

  /** A cluster's scriptable state. */
  public static final class Model {
    final Map<String, Boolean> running = new LinkedHashMap<>();
    final Map<String, List<String>> partitions = new LinkedHashMap<>();
    final Map<String, Long> queues = new LinkedHashMap<>(); // "vhost\0name" -> messages
    final Map<String, AtomicLong> callers = new ConcurrentHashMap<>();
    final AtomicLong purges = new AtomicLong();
    volatile long actionDelayMillis;
    final AtomicLong deletes = new AtomicLong();

    Model() {
      for (int i = 1; i <= 3; i++) {
        running.put("rabbit@node" + i, true);
        partitions.put("rabbit@node" + i, new ArrayList<>());
      }
    }

    public synchronized Model node(String node, boolean up) {
      running.put(node, up);
      partitions.putIfAbsent(node, new ArrayList<>());
      return this;
    }

    /** {@code node} reports a partition from {@code others}. */
    public synchronized Model partition(String node, String... others) {
      partitions.put(node, new ArrayList<>(List.of(others)));
      return this;
    }

    public synchronized Model queue(String vhost, String name, long messages) {
      queues.put(vhost + "\u0000" + name, messages);
      return this;
    }

    public synchronized Model removeQueue(String vhost, String name) {
      queues.remove(vhost + "\u0000" + name);
      return this;
    }

    /** Purges and deletes take this long (a slow broker, so runs last long enough to interrupt). */
    public Model slowActions(long millis) {
      actionDelayMillis = millis;
      return this;
    }

    public synchronized boolean hasQueue(String vhost, String name) {
      return queues.containsKey(vhost + "\u0000" + name);
    }

    public synchronized long messages(String vhost, String name) {
      return queues.getOrDefault(vhost + "\u0000" + name, -1L);
    }

    /** Requests per caller (replica id). */
    public Map<String, Long> callers() {
      Map<String, Long> out = new LinkedHashMap<>();
      callers.forEach((k, v) -> out.put(k, v.get()));
      return out;
    }

    public long purges() {
      return purges.get();
    }

    public long deletes() {
      return deletes.get();
    }
  }

  private final HttpServer server;
  private final Map<String, Model> clusters = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Request> log = new ConcurrentLinkedQueue<>();

  public FakeRabbit() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 128);
    server.setExecutor(Executors.newFixedThreadPool(8, r -> {
      Thread t = new Thread(r, "fake-rabbit");
      t.setDaemon(true);
      return t;
    }));
    server.createContext("/", this::handle);
    server.start();
  }

  public String url(String cluster) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/" + cluster;
  }

  public Model cluster(String name) {
    return clusters.computeIfAbsent(name, n -> new Model());
  }

  public List<Request> requests() {
    return new ArrayList<>(log);
  }

  /** The requests logged after the first {@code from}, in one snapshot (the log grows meanwhile). */
  public List<Request> requestsSince(int from) {
    List<Request> all = requests();
    return all.subList(Math.min(from, all.size()), all.size());
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String[] parts = ex.getRequestURI().getRawPath().split("/", 4); // "", cluster, "api", rest
      if (parts.length < 4 || !parts[2].equals("api")) {
        reply(ex, 404, "{\"error\":\"not_found\"}");
        return;
      }
      String auth = ex.getRequestHeaders().getFirst("Authorization");
      String expected = "Basic " + Base64.getEncoder().encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));
      if (!expected.equals(auth)) {
        reply(ex, 401, "{\"error\":\"not_authorised\"}");
        return;
      }
      String name = parts[1];
      Model m = cluster(name);
      String caller = String.valueOf(ex.getRequestHeaders().getFirst("X-Studio-Replica"));
      m.callers.computeIfAbsent(caller, k -> new AtomicLong()).incrementAndGet();
      String rest = parts[3];
      log.add(new Request(name, caller, ex.getRequestMethod(), rest, System.nanoTime()));
      if (ex.getRequestMethod().equals("DELETE") && m.actionDelayMillis > 0) {
        try {
          Thread.sleep(m.actionDelayMillis); // the broker's own slowness, outside the model's lock
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      synchronized (m) {
        route(ex, m, name, ex.getRequestMethod(), rest, ex.getRequestURI().getRawQuery());
      }
    }
  }

  private void route(HttpExchange ex, Model m, String name, String method, String rest, String query) throws IOException {
    if (method.equals("GET") && rest.equals("overview")) {
      int total = m.queues.size();
      reply(ex, 200, "{\"cluster_name\":\"" + name + "\",\"rabbitmq_version\":\"3.13.7\",\"object_totals\":{\"queues\":"
          + total + "},\"queue_totals\":{\"messages\":" + m.queues.values().stream().mapToLong(Long::longValue).sum() + "}}");
    } else if (method.equals("GET") && rest.equals("nodes")) {
      StringBuilder sb = new StringBuilder("[");
      for (var e : m.running.entrySet()) {
        if (sb.length() > 1) sb.append(',');
        sb.append("{\"name\":\"").append(e.getKey()).append("\",\"running\":").append(e.getValue()).append(",\"partitions\":[");
        List<String> p = m.partitions.getOrDefault(e.getKey(), List.of());
        for (int i = 0; i < p.size(); i++) sb.append(i == 0 ? "" : ",").append('"').append(p.get(i)).append('"');
        sb.append("]}");
      }
      reply(ex, 200, sb.append(']').toString());
    } else if (method.equals("GET") && (rest.equals("queues") || rest.startsWith("queues/"))) {
      String vhost = rest.startsWith("queues/") ? decode(rest.substring(7)) : null;
      Map<String, String> q = query(query);
      int page = Integer.parseInt(q.getOrDefault("page", "1"));
      int size = Integer.parseInt(q.getOrDefault("page_size", "100"));
      List<String> items = new ArrayList<>();
      for (var e : m.queues.entrySet()) {
        String[] k = e.getKey().split("\u0000", 2);
        if (vhost != null && !vhost.equals(k[0])) continue;
        items.add("{\"vhost\":\"" + k[0] + "\",\"name\":\"" + k[1] + "\",\"messages\":" + e.getValue() + ",\"consumers\":0}");
      }
      int pages = Math.max(1, (items.size() + size - 1) / size);
      List<String> slice = items.subList(Math.min(items.size(), (page - 1) * size), Math.min(items.size(), page * size));
      reply(ex, 200, "{\"items\":[" + String.join(",", slice) + "],\"page\":" + page + ",\"page_count\":" + pages
          + ",\"page_size\":" + size + ",\"total_count\":" + items.size() + "}");
    } else if (method.equals("DELETE") && rest.startsWith("queues/")) {
      String[] p = rest.substring(7).split("/");
      String key = decode(p[0]) + "\u0000" + decode(p[1]);
      if (!m.queues.containsKey(key)) {
        reply(ex, 404, "{\"error\":\"Object Not Found\"}");
      } else if (p.length == 3 && p[2].equals("contents")) {
        m.queues.put(key, 0L);
        m.purges.incrementAndGet();
        reply(ex, 204, "");
      } else {
        m.queues.remove(key);
        m.deletes.incrementAndGet();
        reply(ex, 204, "");
      }
    } else {
      reply(ex, 404, "{\"error\":\"not_found\"}");
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new LinkedHashMap<>();
    if (raw == null) return out;
    for (String kv : raw.split("&")) {
      String[] p = kv.split("=", 2);
      if (p.length == 2) out.put(decode(p[0]), decode(p[1]));
    }
    return out;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static void reply(HttpExchange ex, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, status == 204 ? -1 : bytes.length);
    if (status != 204) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
