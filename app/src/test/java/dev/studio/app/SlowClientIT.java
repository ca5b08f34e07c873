package dev.studio.app;

import dev.studio.testing.Publish;
import dev.studio.testing.SseClient;
import dev.studio.testing.StudioProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.studio.testing.Await;
import dev.studio.testing.TestPostgres;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A client that stops reading is cut off; a fast client on the same replica keeps its latency. */
class SlowClientIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @RegisterExtension final Replicas replicas = new Replicas();

  @Test
  void slowClientIsDisconnectedWhileFastClientKeepsItsLatency() throws Exception {
    StudioProcess p = replicas.start(pg, "slow", b -> b.prop("studio.stream.client-buffer", "32")
        .prop("studio.stream.replay-cap", "32")).awaitReady(Duration.ofSeconds(60));
    String pad = "p".repeat(8_000);
    try (Socket slow = new Socket("127.0.0.1", p.port()); SseClient fast = new SseClient(p.port(), "load", "0")) {
      slow.setReceiveBufferSize(4096);
      OutputStream out = slow.getOutputStream();
      out.write(("GET /api/v1/stream?topics=load HTTP/1.0\r\nHost: x\r\nAuthorization: " + StudioProcess.bearer() + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush(); // and never read a byte

      long warm = Publish.frame(p, "load", "{\"warm\":true}");
      fast.until(e -> e.idAsLong() == warm, Duration.ofSeconds(10));
      List<Long> latencies = new ArrayList<>();
      int frames = 600; // ~5 MB: more than the slow socket's buffers and its 32-frame queue
      for (int i = 0; i < frames; i++) {
        long sent = System.currentTimeMillis();
        long id = Publish.frame(p, "load", "{\"i\":" + i + ",\"pad\":\"" + pad + "\"}");
        SseClient.Event e = fast.until(x -> x.idAsLong() == id, Duration.ofSeconds(10)).get(0);
        latencies.add(e.receivedAtMillis() - sent);
      }
      Collections.sort(latencies);
      long p50 = latencies.get(latencies.size() / 2);
      long p99 = latencies.get(latencies.size() * 99 / 100);
      System.out.printf("fast client beside a stalled one: publish->receive p50 %d ms, p99 %d ms over %d frames%n", p50, p99, frames);
      assertTrue(p99 < 1_000, "fast client's p99 " + p99 + " ms");
      String metrics = p.get("/metrics").body();
      double cut = metrics.lines().filter(l -> l.startsWith("studio_sse_slow_disconnects_total"))
          .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
      assertEquals(1.0, cut, "the stalled client was disconnected");
      Await.until("only the fast client remains", Duration.ofSeconds(5), () -> p.get("/metrics").body().lines()
          .anyMatch(l -> l.startsWith("studio_sse_clients") && l.endsWith(" 1.0")));
    }
  }
}
