package dev.studio.app;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.testing.StudioProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** JSON calls to a replica's API, for the process tests. */
final class Api {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private Api() {}

  record Reply(int status, String body, java.net.http.HttpHeaders headers) {
    JsonNode json() {
      return ItSupport.json(body);
    }

    String header(String name) {
      return headers.firstValue(name).orElse(null);
    }
  }

  static Reply send(StudioProcess p, String method, String path, String json) throws IOException, InterruptedException {
    return send(p, StudioProcess.ADMIN_TOKEN, method, path, json);
  }

  /** {@code token} null: no Authorization header. */
  static Reply send(StudioProcess p, String token, String method, String path, String json, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p.port() + path)).timeout(Duration.ofSeconds(10));
    if (token != null) b.header("Authorization", "Bearer " + token);
    if (headers.length > 0) b.headers(headers);
    if (json != null) {
      b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
    } else {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), r.body(), r.headers());
  }

  static JsonNode get(StudioProcess p, String path) throws IOException, InterruptedException {
    Reply r = send(p, "GET", path, null);
    if (r.status() != 200) throw new AssertionError("GET " + path + " answered " + r.status() + ": " + r.body());
    return r.json();
  }

  /** Registers a cluster on the test broker; returns its id. */
  static String createCluster(StudioProcess p, String name, String url, String passwordFile) throws IOException, InterruptedException {
    Reply r = send(p, "POST", "/api/v1/clusters", "{\"name\":\"" + name + "\",\"managementUrl\":\"" + url
        + "\",\"username\":\"studio\",\"passwordRef\":\"file:" + passwordFile + "\"}");
    if (r.status() != 201) throw new AssertionError("create cluster answered " + r.status() + ": " + r.body());
    return r.json().get("id").asText();
  }

  /** Creates a token through {@code p} with the admin token; returns {@code {id, token, …}}. */
  static JsonNode createToken(StudioProcess p, String name, String role) throws IOException, InterruptedException {
    Reply r = send(p, "POST", "/api/v1/tokens", "{\"name\":\"" + name + "\",\"role\":\"" + role + "\"}");
    if (r.status() != 201) throw new AssertionError("create token answered " + r.status() + ": " + r.body());
    return r.json();
  }

  /** The sum of a Prometheus metric's samples on this replica. */
  static double metric(StudioProcess p, String name) {
    return p.get("/metrics").body().lines().filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
  }
}
