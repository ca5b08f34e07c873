package dev.studio.app;

import static dev.studio.app.ItSupport.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.studio.testing.Await;
import dev.studio.testing.BrowserClient;
import dev.studio.testing.Publish;
import dev.studio.testing.SseClient;
import dev.studio.testing.StudioProcess;
import dev.studio.testing.TestPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * PostgreSQL stopped for 10 s under load with three replicas: every replica turns unready within
 * about 3 s, none restarts, all are ready again within about 5 s of the database's return, and no
 * acknowledged frame is lost to a client that catches up by replay.
 */
class DatabaseTroubleIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.dedicated();
  @RegisterExtension final Replicas replicas = new Replicas();

  @Test
  void databaseStoppedUnderLoadUnreadiesEveryReplicaAndEverythingRecoversUnaided() throws Exception {
    List<StudioProcess> live = new ArrayList<>();
    for (int i = 0; i < 3; i++) live.add(replicas.start(pg, "dbt-" + i, b -> b));
    for (StudioProcess p : live) p.awaitReady(Duration.ofSeconds(90));
    AtomicBoolean loading = new AtomicBoolean(true);
    ConcurrentSkipListSet<Long> acknowledged = new ConcurrentSkipListSet<>();
    Thread publisher = new Thread(() -> {
      int i = 0;
      long end = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (loading.get() && System.nanoTime() < end) {
        try {
          acknowledged.add(Publish.frame(live.get(i % 3), "dbt", "{\"i\":" + (i++) + "}"));
        } catch (Throwable refusedDuringOutage) {
          // not acknowledged: the caller knows it was not published
        }
        try {
          Thread.sleep(25); // pacing of this publisher, not a check
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    publisher.start();
    List<BrowserClient> clients = List.of(new BrowserClient(live.get(0).port(), "dbt", "0").replayOnResync(),
        new BrowserClient(live.get(1).port(), "dbt", "0").replayOnResync());
    Await.until("frames flowing", Duration.ofSeconds(10), () -> acknowledged.size() > 20);

    long stopped = System.nanoTime();
    pg.stopServer();
    // each replica watched on its own: a probe of one may take its 2 s timeout while the others answer
    List<java.util.concurrent.CompletableFuture<Double>> watches = new ArrayList<>();
    for (StudioProcess p : live) {
      watches.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
        Await.until(p.name() + " unready", Duration.ofSeconds(8), () -> p.get("/readyz").status() == 503);
        return seconds(stopped);
      }));
    }
    double unready = 0;
    for (var w : watches) unready = Math.max(unready, w.get(10, java.util.concurrent.TimeUnit.SECONDS));
    System.out.printf("database stopped: all 3 replicas unready after %.2f s (the slowest)%n", unready);
    assertTrue(unready <= 4.0, "unready after " + unready);
    Await.until("the outage lasts 10 s", Duration.ofSeconds(12), () -> seconds(stopped) >= 10.0);
    for (StudioProcess p : live) assertEquals(200, p.get("/livez").status(), p.name() + " alive through the outage");

    long started = System.nanoTime();
    pg.startServer();
    List<java.util.concurrent.CompletableFuture<Double>> back = new ArrayList<>();
    for (StudioProcess p : live) {
      back.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
        p.awaitReady(Duration.ofSeconds(15));
        return seconds(started);
      }));
    }
    double ready = 0;
    for (var w : back) ready = Math.max(ready, w.get(20, java.util.concurrent.TimeUnit.SECONDS));
    System.out.printf("database back: all 3 replicas ready after %.2f s%n", ready);
    assertTrue(ready <= 7.0, "ready after " + ready);
    for (StudioProcess p : live) assertTrue(p.alive(), p.name() + " never restarted");

    Await.until("publishing succeeds again", Duration.ofSeconds(15), () -> {
      int before = acknowledged.size();
      return Await.until("one more", Duration.ofSeconds(5), acknowledged::size, n -> n > before) > before;
    });
    loading.set(false);
    publisher.join(10_000);
    long last = acknowledged.last();
    for (BrowserClient c : clients) {
      Await.until("the client caught up", Duration.ofSeconds(30), () -> c.frames().stream().anyMatch(e -> e.idAsLong() == last));
      c.close();
      TreeSet<Long> seen = new TreeSet<>();
      c.frames().forEach(e -> seen.add(e.idAsLong()));
      TreeSet<Long> missing = new TreeSet<>(acknowledged);
      missing.removeAll(seen);
      System.out.printf("client: %d acknowledged frames, %d missing, %d resyncs caught up by replay%n",
          acknowledged.size(), missing.size(), c.oddities().stream().filter(o -> o.startsWith("resync")).count());
      assertTrue(missing.isEmpty(), "lost frames: " + missing);
      List<Long> ids = c.frames().stream().map(SseClient.Event::idAsLong).toList();
      assertEquals(ids.size(), new TreeSet<>(ids).size(), "no duplicates");
    }
  }
}
