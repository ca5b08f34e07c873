package dev.studio.bench;

import dev.studio.testing.StudioProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * sse-fanout: 5,000 SSE clients on one replica (one NIO selector thread in the bench), 10 frames/s
 * published to their topic: delivery latency (publish call to event read, same JVM clock), events
 * delivered versus expected, and the replica's heap and CPU.
 */
final class Fanout {
  static final int CLIENTS = Integer.getInteger("fanout.clients", 5_000);
  static final int RATE = Integer.getInteger("fanout.rate", 10);
  static final Duration WARMUP = Duration.ofSeconds(5);
  static final Duration MEASURE = Duration.ofSeconds(20);

  private Fanout() {}

  /** One client's partial line between reads. */
  private static final class Conn {
    final StringBuilder line = new StringBuilder();
    boolean headersDone;
  }

  static void run() throws Exception {
    try (Cluster c = new Cluster(); Selector selector = Selector.open()) {
      StudioProcess a = c.start("fanout-a");
      InetSocketAddress addr = new InetSocketAddress("127.0.0.1", a.port());
      byte[] request = ("GET /api/v1/stream?topics=fan HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: " + StudioProcess.bearer()
          + "\r\nAccept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
      long[] lat = new long[(int) Math.min(Integer.MAX_VALUE - 8, (long) CLIENTS * RATE * (MEASURE.toSeconds() + 5))];
      AtomicInteger n = new AtomicInteger();
      AtomicInteger open = new AtomicInteger();
      AtomicBoolean measuring = new AtomicBoolean();
      AtomicBoolean stop = new AtomicBoolean();
      long[] window = new long[2];
      Thread reader = new Thread(() -> read(selector, lat, n, open, measuring, window, stop), "fanout-reader");
      reader.start();
      long t0 = System.nanoTime();
      for (int i = 0; i < CLIENTS; i++) { // in batches, so the listen backlog never overflows
        SocketChannel ch = SocketChannel.open();
        ch.connect(addr); // blocking connect on loopback, then non-blocking reads
        ch.write(ByteBuffer.wrap(request));
        ch.configureBlocking(false);
        ch.register(selector, SelectionKey.OP_READ, new Conn()); // JDK 11+: does not wait for select()
        if (i % 200 == 199) awaitOpen(open, i + 1);
      }
      awaitOpen(open, CLIENTS);
      System.out.printf("sse-fanout: %d streams open after %.1f s%n", CLIENTS, (System.nanoTime() - t0) / 1e9);

      HttpClient http = HttpClient.newHttpClient();
      URI publish = URI.create("http://127.0.0.1:" + a.port() + "/api/v1/streams/fan/frames");
      long cpu0 = 0;
      long sent = 0;
      long maxHeap = 0;
      long end = System.nanoTime() + WARMUP.toNanos() + MEASURE.toNanos();
      long next = System.nanoTime();
      long measureFrom = System.nanoTime() + WARMUP.toNanos();
      while (System.nanoTime() < end) {
        long now = System.nanoTime();
        if (!measuring.get() && now >= measureFrom) {
          cpu0 = ticks(a.pid());
          window[0] = now;
          measuring.set(true);
        }
        String body = "{\"t\":" + System.nanoTime() + "}";
        http.send(HttpRequest.newBuilder(publish).header("Authorization", StudioProcess.bearer())
            .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.discarding());
        if (measuring.get()) sent++;
        if (sent % RATE == 0) maxHeap = Math.max(maxHeap, heap(a));
        next += 1_000_000_000L / RATE;
        long sleep = (next - System.nanoTime()) / 1_000_000;
        if (sleep > 0) Thread.sleep(sleep); // the publisher's pace
      }
      window[1] = System.nanoTime();
      Thread.sleep(2_000); // the last frames arrive
      double cpuPct = (ticks(a.pid()) - cpu0) / 100.0 / ((window[1] - window[0]) / 1e9) * 100;
      stop.set(true);
      selector.wakeup();
      reader.join(5_000);
      Stats s = new Stats(lat, Math.min(n.get(), lat.length));
      System.out.printf("sse-fanout %d clients x %d frames/s: delivery %s; delivered %d of %d expected (%.2f %%)%n", CLIENTS, RATE,
          s.summary(), s.count(), sent * CLIENTS, 100.0 * s.count() / Math.max(1, sent * CLIENTS));
      System.out.printf("sse-fanout: replica heap max %.0f MiB (of -Xmx1g); replica CPU %.0f %% of one core (2 cores here)%n",
          maxHeap / 1048576.0, cpuPct);
      for (SelectionKey k : selector.keys()) k.channel().close();
    }
  }

  private static void awaitOpen(AtomicInteger open, int want) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (open.get() < want) {
      if (System.nanoTime() > deadline) throw new IllegalStateException("only " + open.get() + " of " + want + " streams opened");
      Thread.sleep(5);
    }
  }

  private static void read(Selector selector, long[] lat, AtomicInteger n, AtomicInteger open, AtomicBoolean measuring,
      long[] window, AtomicBoolean stop) {
    ByteBuffer buf = ByteBuffer.allocateDirect(64 * 1024);
    try {
      while (!stop.get()) {
        selector.select(100);
        for (SelectionKey key : selector.selectedKeys()) {
          SocketChannel ch = (SocketChannel) key.channel();
          Conn conn = (Conn) key.attachment();
          buf.clear();
          int r;
          try {
            r = ch.read(buf);
          } catch (IOException e) {
            r = -1;
          }
          if (r < 0) {
            key.cancel();
            continue;
          }
          long now = System.nanoTime();
          buf.flip();
          while (buf.hasRemaining()) {
            char ch1 = (char) buf.get();
            if (ch1 != '\n') {
              conn.line.append(ch1);
              continue;
            }
            String line = conn.line.toString();
            conn.line.setLength(0);
            if (!conn.headersDone) {
              if (line.isEmpty() || line.equals("\r")) {
                conn.headersDone = true;
                open.incrementAndGet();
              }
              continue;
            }
            if (line.startsWith("data:{\"t\":")) {
              long sentAt = Long.parseLong(line.substring(10, line.indexOf('}')));
              if (measuring.get() && sentAt >= window[0]) {
                int i = n.getAndIncrement();
                if (i < lat.length) lat[i] = now - sentAt;
              }
            }
          }
        }
        selector.selectedKeys().clear();
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long heap(StudioProcess p) {
    return (long) p.get("/metrics").body().lines().filter(l -> l.startsWith("jvm_memory_used_bytes{") && l.contains("area=\"heap\""))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
  }

  private static long ticks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }
}
