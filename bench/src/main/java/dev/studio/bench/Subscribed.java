package dev.studio.bench;

import dev.studio.testing.Publish;
import dev.studio.testing.SseClient;
import dev.studio.testing.StudioProcess;
import java.time.Duration;

/** Waits until a fresh SSE client's subscription is live: a marker frame must reach it first. */
final class Subscribed {
  private Subscribed() {}

  static void await(StudioProcess publisher, SseClient client, String topic) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      long marker = Publish.frame(publisher, topic, "{\"s\":0,\"marker\":true}");
      try {
        client.until(e -> e.idAsLong() >= marker, Duration.ofSeconds(1));
        return;
      } catch (AssertionError notYet) {
        // published before the subscription landed: try again
      }
    }
    throw new IllegalStateException("SSE subscription never became live");
  }
}
