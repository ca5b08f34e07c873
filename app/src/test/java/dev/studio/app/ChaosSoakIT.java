package dev.studio.app;

import static dev.studio.app.ItSupport.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.studio.testing.Await;
import dev.studio.testing.BrowserClient;
import dev.studio.testing.FakeRabbit;
import dev.studio.testing.Haproxy;
import dev.studio.testing.SseClient;
import dev.studio.testing.StudioProcess;
import dev.studio.testing.TestPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The chaos soak: three replicas behind HAProxy and a broker with 50 clusters; every 10–20 s a random
 * replica is SIGKILLed or SIGTERMed and restarted, while clients publish and subscribe through the
 * load balancer. 60 s in the default run; longer with {@code -Dstudio.soak.seconds=600}.
 */
class ChaosSoakIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @RegisterExtension final Replicas replicas = new Replicas();
  static final int CLUSTERS = 50;

  private StudioProcess replica(String name, int port) throws IOException {
    return replicas.start(pg, name, b -> OwnershipIT.fast().apply(b).port(port).prop("studio.drain.lb-grace", "2s"));
  }

  @Test
  void chaosSoakLosesNoFrameDuplicatesNoneAndNeverDoubleScrapes() throws Exception {
    long soakSeconds = Long.getLong("studio.soak.seconds", 60);
    Random random = new Random(Long.getLong("studio.soak.seed", System.nanoTime()));
    try (FakeRabbit broker = new FakeRabbit()) {
      Path pw = Files.createTempFile("pw", "");
      Files.writeString(pw, FakeRabbit.PASSWORD);
      List<Integer> ports = List.of(StudioProcess.freePort(), StudioProcess.freePort(), StudioProcess.freePort());
      List<StudioProcess> live = new ArrayList<>();
      for (int i = 0; i < 3; i++) live.add(replica("soak-" + i, ports.get(i)));
      for (StudioProcess p : live) p.awaitReady(Duration.ofSeconds(90));
      for (int i = 0; i < CLUSTERS; i++) Api.createCluster(live.get(i % 3), "s" + i, broker.url("s" + i), pw.toString());
      Await.until("all clusters owned", Duration.ofSeconds(20), () -> OwnershipIT.owners(live.get(0)).size() == CLUSTERS);

      try (Haproxy lb = Haproxy.start(ports)) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        URI publish = URI.create("http://127.0.0.1:" + lb.port() + "/api/v1/streams/soak/frames");
        Await.until("the load balancer routes", Duration.ofSeconds(15), () -> http.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + lb.port() + "/readyz")).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
        AtomicBoolean loading = new AtomicBoolean(true);
        ConcurrentSkipListSet<Long> acknowledged = new ConcurrentSkipListSet<>();
        List<Thread> publishers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
          Thread th = new Thread(() -> {
            long end = System.nanoTime() + Duration.ofSeconds(soakSeconds + 120).toNanos();
            int i = 0;
            while (loading.get() && System.nanoTime() < end) {
              try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(publish).timeout(Duration.ofSeconds(10))
                    .header("Authorization", StudioProcess.bearer())
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"i\":" + (i++) + "}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 201) acknowledged.add(Long.parseLong(r.body().replaceAll("[^0-9]", "")));
                Thread.sleep(30); // this publisher's pace, not a check
              } catch (IOException unacknowledged) {
                // a request in flight to a killed replica: not acknowledged, so not counted
              } catch (InterruptedException e) {
                return;
              }
            }
          });
          th.start();
          publishers.add(th);
        }
        List<BrowserClient> clients = List.of(new BrowserClient(lb.port(), "soak", "0").replayOnResync(),
            new BrowserClient(lb.port(), "soak", "0").replayOnResync());

        int logFrom = broker.requests().size();
        List<Double> takeovers = new ArrayList<>();
        int kills = 0;
        int terms = 0;
        long soakEnd = System.nanoTime() + Duration.ofSeconds(soakSeconds).toNanos();
        while (System.nanoTime() < soakEnd) {
          Thread.sleep(10_000 + random.nextInt(10_000)); // the chaos schedule: every 10–20 s
          int i = random.nextInt(3);
          StudioProcess victim = live.get(i);
          String victimId = ItSupport.replicaId(victim);
          boolean kill = random.nextBoolean();
          long t0 = System.nanoTime();
          victim.signal(kill ? "KILL" : "TERM");
          StudioProcess observer = live.get((i + 1) % 3);
          Await.until("clusters of " + victim.name() + " owned again", Duration.ofSeconds(30), () -> {
            Map<String, String> o = OwnershipIT.owners(observer);
            return o.size() == CLUSTERS && !o.containsValue(victimId);
          });
          takeovers.add(seconds(t0));
          int code = victim.awaitExit(Duration.ofSeconds(40));
          if (kill) {
            kills++;
          } else {
            terms++;
            assertEquals(0, code, victim.name() + " exits 0 after SIGTERM");
          }
          live.set(i, replica(victim.name() + "+", ports.get(i)).awaitReady(Duration.ofSeconds(90)));
        }
        loading.set(false);
        for (Thread th : publishers) th.join(15_000);

        long last = acknowledged.last();
        int maxOwners = maxSimultaneousScrapers(broker.requestsSince(logFrom));
        long staleStates = staleStates();
        Collections.sort(takeovers);
        System.out.printf("chaos soak %d s: %d SIGKILL, %d SIGTERM; takeover max %.2f s, p50 %.2f s%n", soakSeconds, kills,
            terms, takeovers.isEmpty() ? 0 : takeovers.get(takeovers.size() - 1),
            takeovers.isEmpty() ? 0 : takeovers.get(takeovers.size() / 2));
        System.out.printf("chaos soak: max simultaneous scrapers of one cluster (broker's log): %d; stale states accepted: %d%n",
            maxOwners, staleStates);
        for (BrowserClient c : clients) {
          Await.until("client caught up", Duration.ofSeconds(30), () -> c.frames().stream().anyMatch(e -> e.idAsLong() == last));
          c.close();
          List<Long> ids = c.frames().stream().map(SseClient.Event::idAsLong).toList();
          TreeSet<Long> seen = new TreeSet<>(ids);
          TreeSet<Long> lost = new TreeSet<>(acknowledged);
          lost.removeAll(seen);
          System.out.printf("chaos soak client: published %d, received %d, lost %d, duplicated %d (over %d connections)%n",
              acknowledged.size(), seen.size(), lost.size(), ids.size() - seen.size(), c.connections());
          assertTrue(lost.isEmpty(), "lost " + lost);
          assertEquals(ids.size(), seen.size(), "duplicates");
        }
        assertEquals(1, maxOwners, "a cluster was scraped by two replicas at once");
        assertEquals(0, staleStates, "a state written under an outdated token survived");
      }
    }
  }

  /**
   * From the broker's request log: per cluster, the time-ordered callers are compressed into runs
   * (A A A B B A …). A handover shows as A→B, and a hand-back after a newer replica died as A→B→A;
   * two replicas scraping at once show as alternation, A→B→A→B. Returns 2 if any cluster shows it,
   * else 1 (0 for an empty log).
   */
  static int maxSimultaneousScrapers(List<FakeRabbit.Request> log) {
    Map<String, List<FakeRabbit.Request>> byCluster = new HashMap<>();
    for (var r : log) byCluster.computeIfAbsent(r.cluster(), k -> new ArrayList<>()).add(r);
    int max = byCluster.isEmpty() ? 0 : 1;
    for (var requests : byCluster.values()) {
      requests.sort((x, y) -> Long.compare(x.atNanos(), y.atNanos()));
      List<String> runs = new ArrayList<>();
      for (var r : requests) {
        if (runs.isEmpty() || !runs.get(runs.size() - 1).equals(r.caller())) runs.add(r.caller());
      }
      for (int i = 0; i + 3 < runs.size(); i++) {
        if (runs.get(i).equals(runs.get(i + 2)) && runs.get(i + 1).equals(runs.get(i + 3))) max = 2;
      }
    }
    return max;
  }

  /** States whose token is older than the cluster's current lease token and that were written after takeover. */
  private static long staleStates() throws Exception {
    try (var c = pg.connect(); var st = c.createStatement();
         var rs = st.executeQuery("SELECT count(*) FROM cluster_state s JOIN cluster_lease l USING (cluster_id) "
             + "WHERE s.token > l.token")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
