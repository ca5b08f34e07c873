package dev.studio.app;

import dev.studio.testing.StudioProcess;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/** Small readers of Studio's JSON answers, shared by the process tests. */
final class ItSupport {
  static final ObjectMapper JSON = new ObjectMapper();

  private ItSupport() {}

  static JsonNode json(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new UncheckedIOException("not JSON: " + body, e);
    }
  }

  static String replicaId(StudioProcess p) {
    return json(p.get("/livez").body()).get("replica").asText();
  }

  /** The replica {@code id} as listed by {@code p}'s {@code /api/v1/replicas}. */
  static Optional<JsonNode> listed(StudioProcess p, String id) {
    StudioProcess.Reply r = p.get("/api/v1/replicas");
    if (r.status() != 200) return Optional.empty();
    for (JsonNode n : json(r.body()).get("replicas")) {
      if (n.get("id").asText().equals(id)) return Optional.of(n);
    }
    return Optional.empty();
  }

  static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
