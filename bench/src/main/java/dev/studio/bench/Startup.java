package dev.studio.bench;

import dev.studio.testing.StudioProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Process start to {@code /readyz} 200: on an external PostgreSQL, and on the embedded default (first and second start). */
final class Startup {
  private Startup() {}

  static void run() throws Exception {
    try (Cluster c = new Cluster()) {
      c.start("warm"); // migrations applied once: the figures below are replica starts
      for (int i = 1; i <= 3; i++) {
        long t0 = System.nanoTime();
        c.start("start-" + i);
        System.out.printf("startup, external PostgreSQL (schema current), run %d: %.0f ms to /readyz 200%n", i,
            (System.nanoTime() - t0) / 1e6);
      }
    }
    Path data = Files.createTempDirectory("studio-bench-embedded");
    for (String which : new String[] {"first (initdb + migrations)", "second (data kept)"}) {
      long t0 = System.nanoTime();
      try (StudioProcess p = StudioProcess.builder("embedded").env("STUDIO_DATA_DIR", data.toString()).start()) {
        p.awaitReady(Duration.ofSeconds(180));
        System.out.printf("startup, embedded PostgreSQL, %s start: %.0f ms to /readyz 200%n", which, (System.nanoTime() - t0) / 1e6);
        p.signal("TERM");
        p.awaitExit(Duration.ofSeconds(60));
      }
    }
  }
}
