package dev.studio.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.studio.testing.Await;
import dev.studio.testing.BrowserClient;
import dev.studio.testing.Haproxy;
import dev.studio.testing.SseClient;
import dev.studio.testing.StudioProcess;
import dev.studio.testing.TestPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Invariant 8 behind a real HAProxy (the project's own haproxy.cfg): while API clients, publishers
 * and browser-like SSE clients run through the load balancer, each of three replicas in turn is
 * SIGTERMed and restarted. No request fails, no frame is lost or duplicated, every replica exits 0.
 */
class RollingRestartIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @RegisterExtension final Replicas replicas = new Replicas();

  private StudioProcess replica(String name, int port) throws IOException {
    return replicas.start(pg, name, b -> b.port(port).prop("studio.drain.lb-grace", "2s")
        .prop("studio.drain.request-deadline", "3s"));
  }

  @Test
  void aRollingRestartBehindTheLoadBalancerLosesNoRequestAndNoFrame() throws Exception {
    List<Integer> ports = List.of(StudioProcess.freePort(), StudioProcess.freePort(), StudioProcess.freePort());
    List<StudioProcess> live = new ArrayList<>();
    for (int i = 0; i < 3; i++) live.add(replica("roll-" + i, ports.get(i)));
    for (StudioProcess p : live) p.awaitReady(Duration.ofSeconds(90));
    try (Haproxy lb = Haproxy.start(ports)) {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      String base = "http://127.0.0.1:" + lb.port();
      Await.until("the load balancer routes", Duration.ofSeconds(15), () -> http.send(HttpRequest.newBuilder(
          URI.create(base + "/readyz")).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200);

      AtomicBoolean loading = new AtomicBoolean(true);
      List<String> failures = new CopyOnWriteArrayList<>();
      ConcurrentSkipListSet<Long> published = new ConcurrentSkipListSet<>();
      AtomicLong requests = new AtomicLong();
      List<Thread> load = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        int thread = t;
        Thread th = new Thread(() -> {
          int i = 0;
          long end = System.nanoTime() + Duration.ofMinutes(3).toNanos(); // bounded even if the test hangs
          while (loading.get() && System.nanoTime() < end) {
            try {
              HttpResponse<String> r = thread == 0
                  ? http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/replicas")).timeout(Duration.ofSeconds(10))
                      .header("Authorization", StudioProcess.bearer())
                      .build(), HttpResponse.BodyHandlers.ofString())
                  : http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/streams/roll/frames"))
                      .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                      .header("Authorization", StudioProcess.bearer())
                      .POST(HttpRequest.BodyPublishers.ofString("{\"t\":" + thread + ",\"i\":" + (i++) + "}")).build(),
                      HttpResponse.BodyHandlers.ofString());
              requests.incrementAndGet();
              if (r.statusCode() == 201) {
                published.add(Long.parseLong(r.body().replaceAll("[^0-9]", "")));
              } else if (r.statusCode() != 200) {
                failures.add(r.statusCode() + " " + r.body());
              }
              Thread.sleep(20); // pacing of this client, not a check
            } catch (IOException e) {
              failures.add(e.toString());
            } catch (InterruptedException e) {
              return;
            }
          }
        }, "load-" + t);
        th.start();
        load.add(th);
      }
      List<BrowserClient> browsers = List.of(new BrowserClient(lb.port(), "roll", "0"),
          new BrowserClient(lb.port(), "roll", "0"));

      for (int i = 0; i < 3; i++) {
        StudioProcess old = live.get(i);
        old.signal("TERM");
        assertEquals(0, old.awaitExit(Duration.ofSeconds(40)), old.name() + " exits 0");
        StudioProcess fresh = replica("roll-" + i + "-again", ports.get(i)).awaitReady(Duration.ofSeconds(90));
        live.set(i, fresh);
        Thread.sleep(1500); // HAProxy's rise (2 × 500 ms) before the next replica goes: pacing, not a check
      }
      loading.set(false);
      for (Thread th : load) th.join(15_000);

      long last = published.last();
      for (BrowserClient b : browsers) {
        Await.until("the browser saw the last frame", Duration.ofSeconds(30),
            () -> b.frames().stream().anyMatch(e -> e.idAsLong() == last));
        b.close();
      }
      System.out.printf("rolling restart of 3 replicas behind HAProxy: %d requests, %d failed, %d frames published%n",
          requests.get(), failures.size(), published.size());
      assertTrue(failures.isEmpty(), "failed requests: " + failures);
      for (BrowserClient b : browsers) {
        List<Long> ids = b.frames().stream().map(SseClient.Event::idAsLong).toList();
        TreeSet<Long> unique = new TreeSet<>(ids);
        System.out.printf("browser: %d frames over %d connections, %d duplicated, %d missing%n", ids.size(),
            b.connections(), ids.size() - unique.size(), published.size() - unique.size());
        assertEquals(ids.size(), unique.size(), "no duplicates");
        assertEquals(published, unique, "every published frame, no other");
        for (int i = 1; i < ids.size(); i++) assertTrue(ids.get(i) > ids.get(i - 1), "in id order");
        assertTrue(b.oddities().isEmpty(), "no resync or failed connect: " + b.oddities());
        assertTrue(b.connections() >= 2, "the browser was moved by the drain at least once");
      }
    }
  }
}
