package dev.studio.bench;

import dev.studio.testing.SseClient;
import dev.studio.testing.StudioProcess;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * publish(A) → SSE event at a client on B, at 1,000 and 5,000 frames/s, beside the raw
 * LISTEN/NOTIFY latency of pgjdbc measured in the same run (blocking read and a polling read).
 */
final class BusLatency {
  static final Duration WARMUP = Duration.ofSeconds(3);
  static final Duration MEASURE = Duration.ofSeconds(10);
  static final int[] RATES = java.util.Arrays.stream(System.getProperty("rates", "1000,5000").split(","))
      .mapToInt(Integer::parseInt).toArray();

  private BusLatency() {}

  static void run() throws Exception {
    try (Cluster c = new Cluster()) {
      raw(c, 1000, 0, true); // JIT warm-up of the bench's own read and send paths
      java.util.Map<Integer, Stats> baseline = new java.util.HashMap<>();
      for (int rate : Boolean.getBoolean("skipRaw") ? new int[0] : RATES) {
        Stats stock = raw(c, rate, 50, false);
        Stats push = raw(c, rate, 0, true);
        baseline.put(rate, push);
        System.out.printf("raw LISTEN/NOTIFY %d/s, stock getNotifications(50): %s%n", rate, stock.summary());
        System.out.printf("raw LISTEN/NOTIFY %d/s, Studio's read loop (PushReads): %s%n", rate, push.summary());
      }
      StudioProcess a = c.start("bench-a");
      StudioProcess b = c.start("bench-b");
      for (int rate : RATES) {
        studio(a, b, rate, WARMUP, "warmup");
        Stats s = studio(a, b, rate, MEASURE, "measure");
        System.out.printf("studio publish(A) -> SSE on B %d/s: %s%n", rate, s.summary());
        Stats raw = baseline.get(rate);
        if (raw != null) {
          System.out.printf("ratio studio / raw LISTEN/NOTIFY (Studio's read loop) %d/s: p50 %.0f x, p99 %.0f x%n", rate,
              s.pctMs(50) / raw.pctMs(50), s.pctMs(99) / raw.pctMs(99));
        }
      }
    }
  }

  /** Raw pgjdbc: NOTIFY from one connection, LISTEN on another, for MEASURE at {@code rate}. */
  static Stats raw(Cluster c, int rate, int timeoutMillis, boolean push) throws Exception {
    int n = (int) (rate * MEASURE.toSeconds());
    long[] sent = new long[n];
    long[] lat = new long[n];
    int[] got = {0};
    AtomicBoolean done = new AtomicBoolean();
    try (Connection listen = c.pg.connect(c.database); Connection send = c.pg.connect(c.database)) {
      try (Statement st = listen.createStatement()) {
        st.execute("LISTEN bench");
      }
      PGConnection pg = listen.unwrap(PGConnection.class);
      if (push && !dev.studio.bus.PushReads.enable(listen)) throw new IllegalStateException("PushReads unavailable");
      Thread reader = new Thread(() -> {
        try {
          while (!done.get()) {
            PGNotification[] batch = pg.getNotifications(timeoutMillis);
            if (batch == null) continue;
            long now = System.nanoTime();
            for (PGNotification x : batch) {
              int i = Integer.parseInt(x.getParameter());
              lat[got[0]++] = now - sent[i];
              if (got[0] == n) done.set(true);
            }
          }
        } catch (Exception e) {
          done.set(true);
        }
      });
      reader.start();
      Pacer pacer = new Pacer(rate);
      try (PreparedStatement ps = send.prepareStatement("SELECT pg_notify('bench', ?)")) {
        for (int i = 0; i < n; i++) {
          pacer.awaitTurn(i);
          sent[i] = System.nanoTime();
          ps.setString(1, Integer.toString(i));
          ps.execute();
        }
      }
      reader.join(10_000);
      done.set(true);
      if (timeoutMillis == 0) listen.abort(Runnable::run);
    }
    return new Stats(lat, got[0]);
  }

  /** Frames published through A's HTTP API at {@code rate}; latency until the SSE client on B has them. */
  static Stats studio(StudioProcess a, StudioProcess b, int rate, Duration length, String phase) throws Exception {
    String topic = "lat-" + phase + "-" + rate;
    int n = (int) (rate * length.toSeconds());
    long[] lat = new long[n];
    int received = 0;
    try (SseClient client = new SseClient(b.port(), topic, null)) {
      Subscribed.await(a, client, topic);
      // enough senders that HTTP round trips never hold the schedule back (each waits for its commit)
      int threads = Math.max(4, rate / 100);
      Pacer pacer = new Pacer(rate);
      List<Thread> senders = new ArrayList<>();
      java.util.concurrent.atomic.AtomicLong next = new java.util.concurrent.atomic.AtomicLong();
      java.util.concurrent.atomic.AtomicLong failed = new java.util.concurrent.atomic.AtomicLong();

      for (int t = 0; t < threads; t++) {
        Thread th = new Thread(() -> {
          long i;
          try (RawPublisher pub = new RawPublisher(a.port(), topic)) {
            while ((i = next.getAndIncrement()) < n) {
              pacer.awaitTurn(i);
              try {
                pub.publish("{\"s\":" + System.nanoTime() + "}");
              } catch (java.io.IOException e) {
                if (failed.incrementAndGet() < 3) System.out.println("  " + e.getMessage());
                return;
              }
            }
          } catch (java.io.IOException e) {
            failed.incrementAndGet();
          }
        });
        th.start();
        senders.add(th);
      }
      long started = System.nanoTime();
      long deadline = started + length.toNanos() * 3 + Duration.ofSeconds(10).toNanos(); // bounded, generous
      while (received < n && System.nanoTime() < deadline) {
        SseClient.Event e;
        try {
          e = client.next(Duration.ofSeconds(5));
        } catch (AssertionError quiet) {
          if (senders.stream().noneMatch(Thread::isAlive)) break;
          continue;
        }
        long s = Long.parseLong(e.data().replaceAll("[^0-9]", ""));
        lat[received++] = e.receivedAtNanos() - s;
      }
      for (Thread th : senders) th.join(10_000);
      double took = (System.nanoTime() - started) / 1e9;
      if (took > length.toSeconds() * 1.1) {
        System.out.printf("  (%s: the senders needed %.1f s for %d frames; the offered rate fell short of %d/s)%n",
            phase, took, n, rate);
      }
      if (received < n) {
        String slow = b.get("/metrics").body().lines().filter(l -> l.startsWith("studio_sse_slow")).findFirst().orElse("");
        System.out.printf("  (%s at %d/s: %d of %d frames arrived; %d publish errors; stream ended: %s; %s)%n",
            phase, rate, received, n, failed.get(), client.ended(), slow);
      }
    }
    return new Stats(lat, received);
  }
}
