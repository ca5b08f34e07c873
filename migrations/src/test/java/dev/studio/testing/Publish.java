package dev.studio.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Publishes frames through a replica's HTTP API, as an operator's script would. */
public final class Publish {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private Publish() {}

  public static long frame(StudioProcess p, String topic, String json) throws IOException, InterruptedException {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + p.port() + "/api/v1/streams/" + topic + "/frames"))
        .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
        .header("Authorization", StudioProcess.bearer())
        .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 201) throw new AssertionError("publish answered " + r.statusCode() + ": " + r.body());
    return Long.parseLong(r.body().replaceAll("[^0-9]", ""));
  }
}
