package dev.studio.app;

import dev.studio.testing.Publish;
import dev.studio.testing.SseClient;
import dev.studio.testing.StudioProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.studio.testing.TestPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Invariants 1 and 2 on two real replicas: cross-replica delivery, replay anywhere, exactly once in order. */
class StreamsIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  static final Replicas replicas = new Replicas();
  static final int REPLAY_CAP = 200;
  static StudioProcess a;
  static StudioProcess b;
  static final Duration WAIT = Duration.ofSeconds(15);

  @BeforeAll
  static void start() throws Exception {
    pg.beforeEach(null);
    a = replicas.start(pg, "streams-a", x -> x.prop("studio.stream.replay-cap", String.valueOf(REPLAY_CAP)));
    b = replicas.start(pg, "streams-b", x -> x.prop("studio.stream.replay-cap", String.valueOf(REPLAY_CAP)));
    a.awaitReady(Duration.ofSeconds(90));
    b.awaitReady(Duration.ofSeconds(90));
  }

  @AfterAll
  static void stop() {
    replicas.stopAll(false);
  }

  private static String topic() {
    return "t" + System.nanoTime();
  }

  @Test
  void frameThroughAReachesClientOnBAndReplayWorksOnAnyReplica() throws Exception {
    String topic = topic();
    List<Long> first = new ArrayList<>();
    long lastSeen;
    try (SseClient onB = new SseClient(b.port(), topic, "0")) { // from 0: the subscription cannot miss the first frame
      long t0 = System.nanoTime();
      long marker = Publish.frame(a, topic, "{\"n\":0}");
      var got = onB.until(e -> e.idAsLong() == marker, WAIT);
      assertEquals(1, got.size(), "the first frame, once");
      System.out.printf("A -> SSE client on B (first frame, HTTP publish included): %.1f ms%n", (System.nanoTime() - t0) / 1e6);
      for (int i = 1; i <= 4; i++) first.add(Publish.frame(a, topic, "{\"n\":" + i + "}"));
      got = onB.until(e -> e.idAsLong() == first.get(3), WAIT);
      assertEquals(first, got.stream().map(SseClient.Event::idAsLong).toList(), "each frame once, in order");
      assertEquals(topic, got.get(0).event());
      assertEquals("{\"n\":1}", got.get(0).data());
      lastSeen = first.get(3);
    }
    // while the client is away, frames are published through both replicas
    List<Long> missed = new ArrayList<>();
    for (int i = 0; i < 6; i++) missed.add(Publish.frame(i % 2 == 0 ? b : a, topic, "{\"missed\":" + i + "}"));
    try (SseClient onA = new SseClient(a.port(), topic, Long.toString(lastSeen))) {
      var replayed = onA.until(e -> e.idAsLong() == missed.get(5), WAIT);
      assertEquals(missed, replayed.stream().map(SseClient.Event::idAsLong).toList(), "exactly the missed frames");
      long after = Publish.frame(b, topic, "{\"live\":true}");
      assertEquals(after, onA.next(WAIT).idAsLong(), "then live, with nothing in between");
    }
  }

  @Test
  void aTwentyKilobyteFrameArrivesWhole() throws Exception {
    String topic = topic();
    String big = "{\"blob\":\"" + "x".repeat(20_000) + "\",\"tail\":\"ü€\"}";
    try (SseClient onB = new SseClient(b.port(), topic, "0")) {
      long id = Publish.frame(a, topic, big);
      var e = onB.until(x -> x.idAsLong() == id, WAIT);
      assertEquals(big, e.get(e.size() - 1).data());
    }
  }

  @Test
  void aBurstPastTheReplayCapYieldsResync() throws Exception {
    String topic = topic();
    long before = Publish.frame(a, topic, "{\"start\":true}");
    long last = 0;
    for (int i = 0; i < REPLAY_CAP + 20; i++) last = Publish.frame(i % 2 == 0 ? a : b, topic, "{\"i\":" + i + "}");
    try (SseClient late = new SseClient(b.port(), topic, Long.toString(before))) {
      SseClient.Event first = late.next(WAIT);
      assertEquals("resync", first.event());
      assertTrue(first.idAsLong() >= last, "resync positions the client at the newest frame");
      long live = Publish.frame(a, topic, "{\"after\":\"resync\"}");
      assertEquals(live, late.next(WAIT).idAsLong());
    }
  }

  @Test
  void unreadableLastEventIdIsTreatedAsNoIdWithAResync() throws Exception {
    String topic = topic();
    try (SseClient c = new SseClient(a.port(), topic, "not-a-number")) {
      SseClient.Event first = c.next(WAIT);
      assertEquals("resync", first.event());
      assertEquals(200, c.status());
    }
  }

  @Test
  void concurrentPublishersOnTwoReplicasEveryClientSeesEveryFrameOnceInIdOrder() throws Exception {
    String topic = topic();
    int threads = 4;
    int perThread = 400;
    Set<Long> published = new ConcurrentSkipListSet<>();
    try (SseClient onA = new SseClient(a.port(), topic, "0");
         SseClient onB = new SseClient(b.port(), topic, "0");
         SseClient moving = new SseClient(b.port(), topic, "0")) {
      long ready = Publish.frame(a, topic, "{\"ready\":true}");
      for (SseClient c : List.of(onA, onB, moving)) c.until(e -> e.idAsLong() == ready, WAIT);
      published.add(ready);

      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> work = new ArrayList<>();
      long t0 = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        StudioProcess via = t % 2 == 0 ? a : b;
        int thread = t;
        work.add(pool.submit(() -> {
          for (int i = 0; i < perThread; i++) published.add(Publish.frame(via, topic, "{\"t\":" + thread + ",\"i\":" + i + "}"));
          return null;
        }));
      }
      // halfway, one client moves from B to A with its last id, as a browser would on reconnect
      List<SseClient.Event> movingSeen = new ArrayList<>(moving.until(e -> published.size() > threads * perThread / 2, Duration.ofSeconds(60)));
      moving.close();
      try (SseClient moved = new SseClient(a.port(), topic, movingSeen.get(movingSeen.size() - 1).id())) {
        for (Future<?> f : work) f.get(120, TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - t0) / 1e9;
        pool.shutdown();
        System.out.printf("%d frames published concurrently through 2 replicas in %.1f s (%.0f/s over HTTP)%n",
            published.size() - 1, seconds, (published.size() - 1) / seconds);
        long lastId = Collections.max(published);
        movingSeen.addAll(moved.until(e -> e.idAsLong() == lastId, Duration.ofSeconds(60)));
      }
      long lastId = Collections.max(published);
      List<SseClient.Event> seenA = onA.until(e -> e.idAsLong() == lastId, Duration.ofSeconds(60));
      List<SseClient.Event> seenB = onB.until(e -> e.idAsLong() == lastId, Duration.ofSeconds(60));
      TreeSet<Long> expected = new TreeSet<>(published);
      expected.remove(ready);
      assertExactlyOnceInOrder("client on A", expected, seenA, ready);
      assertExactlyOnceInOrder("client on B", expected, seenB, ready);
      assertExactlyOnceInOrder("client that moved from B to A", expected, movingSeen, ready);
    }
  }

  private static void assertExactlyOnceInOrder(String who, TreeSet<Long> expected, List<SseClient.Event> seen, long skip) {
    assertTrue(seen.stream().noneMatch(e -> "resync".equals(e.event())), who + " was told to resync");
    List<Long> ids = seen.stream().map(SseClient.Event::idAsLong).filter(id -> id != skip).toList();
    TreeSet<Long> missing = new TreeSet<>(expected);
    ids.forEach(missing::remove);
    long duplicates = ids.size() - new TreeSet<>(ids).size();
    boolean ordered = true;
    for (int i = 1; i < ids.size(); i++) ordered &= ids.get(i) > ids.get(i - 1);
    System.out.printf("%s: %d frames, %d missing, %d duplicated, in order: %s%n", who, ids.size(), missing.size(), duplicates, ordered);
    assertTrue(missing.isEmpty(), who + " missed " + missing.size() + " frames, first " + (missing.isEmpty() ? null : missing.first()));
    assertEquals(0, duplicates, who + " saw duplicates");
    assertTrue(ordered, who + " saw frames out of id order");
    assertEquals(expected.size(), ids.size(), who);
  }
}
