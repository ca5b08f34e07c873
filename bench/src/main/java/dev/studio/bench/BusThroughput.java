package dev.studio.bench;

import dev.studio.testing.SseClient;
import dev.studio.testing.StudioProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Frames published through A as fast as clients can, delivered to an SSE client on B; beside pgbench
 * in the same run: (a) {@code SELECT pg_notify} alone, (b) INSERT + pg_notify in one transaction.
 */
final class BusThroughput {
  static final Duration LENGTH = Duration.ofSeconds(10);
  static final int SENDERS = 32;
  static final long MAX_FRAMES = 1_000_000;

  private BusThroughput() {}

  static void run() throws Exception {
    try (Cluster c = new Cluster()) {
      c.pg.createDatabase("baseline"); // pgbench's own database: Studio's must stay empty for its migrations
      double a = pgbench(c, "SELECT pg_notify('bench', 'x');\n");
      try (Connection conn = c.pg.connect("baseline"); Statement st = conn.createStatement()) {
        st.execute("CREATE TABLE bench_frame (id bigserial PRIMARY KEY, data json)");
      }
      double b = pgbench(c, "BEGIN;\nINSERT INTO bench_frame (data) VALUES ('{\"x\":1}');\nSELECT pg_notify('bench', 'x');\nCOMMIT;\n");
      if (a > 0) System.out.printf("baseline (a) pgbench SELECT pg_notify: %.0f tx/s%n", a);
      if (b > 0) System.out.printf("baseline (b) pgbench INSERT + pg_notify per tx: %.0f tx/s%n", b);

      StudioProcess pa = c.start("tp-a");
      StudioProcess pb = c.start("tp-b");
      flood(pa, pb, Duration.ofSeconds(10), "warmup"); // C2 needs the first seconds; measure warm
      double rate = flood(pa, pb, LENGTH, "measure");
      System.out.printf("studio frames/s delivered A -> SSE on B (HTTP publish, %d keep-alive connections): %.0f%n", SENDERS, rate);
      if (b > 0) System.out.printf("ratio studio / baseline (b): %.2f%n", rate / b);
    }
  }

  private static double flood(StudioProcess a, StudioProcess b, Duration length, String phase) throws Exception {
    String topic = "tp-" + phase;
    AtomicLong sent = new AtomicLong();
    try (SseClient client = new SseClient(b.port(), topic, null)) {
      Subscribed.await(a, client, topic);
      long start = System.nanoTime();
      long end = start + length.toNanos();
      List<Thread> senders = new ArrayList<>();
      for (int t = 0; t < SENDERS; t++) {
        Thread th = new Thread(() -> {
          try (RawPublisher pub = new RawPublisher(a.port(), topic)) {
            while (System.nanoTime() < end && sent.get() < MAX_FRAMES) {
              pub.publish("{\"x\":1}");
              sent.incrementAndGet();
            }
          } catch (IOException e) {
            System.out.println("  publisher stopped: " + e.getMessage());
          }
        });
        th.start();
        senders.add(th);
      }
      long received = 0;
      long lastAt = start;
      long deadline = end + Duration.ofSeconds(15).toNanos();
      while (System.nanoTime() < deadline) {
        boolean sendersDone = senders.stream().noneMatch(Thread::isAlive);
        if (sendersDone && received >= sent.get()) break;
        try {
          client.next(Duration.ofSeconds(2));
          received++;
          lastAt = System.nanoTime();
        } catch (AssertionError quiet) {
          if (sendersDone) break;
        }
      }
      double seconds = (lastAt - start) / 1e9;
      if (phase.equals("measure")) {
        System.out.printf("  published %d, delivered %d in %.1f s%n", sent.get(), received, seconds);
      }
      return received / seconds;
    }
  }

  /** pgbench for LENGTH with 4 clients; tx/s, or -1 where pgbench is not installed. */
  static double pgbench(Cluster c, String script) throws Exception {
    Path bin = findPgbench();
    if (bin == null) {
      System.out.println("baseline skipped: pgbench not found (Debian: postgresql-client / postgresql)");
      return -1;
    }
    Path file = Files.createTempFile("bench", ".sql");
    Files.writeString(file, script);
    Process p = new ProcessBuilder(bin.toString(), "-n", "-c", "4", "-j", "2", "-T", String.valueOf(LENGTH.toSeconds()),
        "-f", file.toString(), "-h", "127.0.0.1", "-p", String.valueOf(c.pg.port()), "-U", "postgres", "baseline")
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    p.waitFor();
    Matcher m = Pattern.compile("tps = ([0-9.]+)").matcher(out);
    if (!m.find()) {
      System.out.println("pgbench failed: " + out);
      return -1;
    }
    return Double.parseDouble(m.group(1));
  }

  private static Path findPgbench() throws IOException {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir, "pgbench");
      if (Files.isExecutable(p)) return p;
    }
    Path lib = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(lib)) {
      try (var versions = Files.list(lib)) {
        for (Path v : versions.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Path p = v.resolve("bin/pgbench");
          if (Files.isExecutable(p)) return p;
        }
      }
    }
    return null;
  }
}
