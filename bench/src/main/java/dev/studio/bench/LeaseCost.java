package dev.studio.bench;

import dev.studio.testing.StudioProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * lease-cost: 10,000 clusters over 3 replicas at the default lease timings, idle (duties 1 h apart):
 * each replica's renewal pass p50/p99 (its own timer), database transactions per pass, and the
 * CPU PostgreSQL spends meanwhile.
 */
final class LeaseCost {
  static final int CLUSTERS = Integer.getInteger("leaseCost.clusters", 10_000);
  static final Duration WINDOW = Duration.ofSeconds(30);

  private LeaseCost() {}

  static void run() throws Exception {
    try (Cluster c = new Cluster()) {
      String[] props = {"studio.scrape.tier-a", "1h", "studio.scrape.tier-b", "1h"};
      List<StudioProcess> live = new ArrayList<>();
      for (int i = 1; i <= 3; i++) live.add(c.start("lc-" + i, props));
      Leases.addClusters(c, CLUSTERS);
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (Placement.owners(c).size() < CLUSTERS && System.nanoTime() < deadline) Thread.sleep(200);
      Placement.awaitFirstScrapes(c, CLUSTERS); // the owners' first broker calls and state writes
      Thread.sleep(10_000); // acquisition passes behind us: measure steady renewal only
      double passesBefore = passes(live);
      double secondsBefore = passSeconds(live);
      long xactBefore = commits(c);
      long cpuBefore = postgresTicks();
      Thread.sleep(WINDOW.toMillis());
      double passes = passes(live) - passesBefore;
      double passSeconds = passSeconds(live) - secondsBefore;
      long xacts = commits(c) - xactBefore;
      double cpu = (postgresTicks() - cpuBefore) / 100.0 / WINDOW.toSeconds() * 100;
      for (StudioProcess p : live) {
        String m = p.get("/metrics").body();
        System.out.printf("lease-cost %,d clusters / 3 replicas, %s: renewal pass p50 %.1f ms, p99 %.1f ms (last 2 min, acquisition included), leases held %.0f%n",
            CLUSTERS, p.name(), Leases.sample(m, "studio_leases_renewal_pass_seconds{", "quantile=\"0.5\"") * 1000,
            Leases.sample(m, "studio_leases_renewal_pass_seconds{", "quantile=\"0.99\"") * 1000,
            Leases.sample(m, "studio_leases_held", ""));
      }
      System.out.printf("lease-cost: steady renewal pass in the %d s window, mean over all replicas: %.1f ms%n",
          WINDOW.toSeconds(), passSeconds / Math.max(1, passes) * 1000);
      System.out.printf("lease-cost: %.0f renewal passes in %d s, %d database transactions (all background work: heartbeats,"
          + " live-set checks, bus pings) = %.1f per pass; one renewal statement per pass by construction%n",
          passes, WINDOW.toSeconds(), xacts, xacts / Math.max(1, passes));
      System.out.printf("lease-cost: PostgreSQL CPU while idle: %.1f %% of one core%n", cpu);
    }
  }

  private static double passes(List<StudioProcess> live) {
    double n = 0;
    for (StudioProcess p : live) n += Leases.sample(p.get("/metrics").body(), "studio_leases_renewal_pass_seconds_count", "");
    return n;
  }

  private static double passSeconds(List<StudioProcess> live) {
    double s = 0;
    for (StudioProcess p : live) s += Leases.sample(p.get("/metrics").body(), "studio_leases_renewal_pass_seconds_sum", "");
    return s;
  }

  private static long commits(Cluster c) throws Exception {
    try (Connection conn = c.pg.connect(c.database); Statement st = conn.createStatement();
         ResultSet rs = st.executeQuery("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** utime + stime of every process named postgres (clock ticks, 100 per second). */
  static long postgresTicks() throws IOException {
    long ticks = 0;
    try (var dirs = Files.list(Path.of("/proc"))) {
      for (Path d : (Iterable<Path>) dirs::iterator) {
        if (!d.getFileName().toString().chars().allMatch(Character::isDigit)) continue;
        try {
          String stat = Files.readString(d.resolve("stat"));
          int close = stat.lastIndexOf(')');
          if (!stat.substring(stat.indexOf('(') + 1, close).equals("postgres")) continue;
          String[] f = stat.substring(close + 2).split(" ");
          ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException gone) {
          // the process ended meanwhile
        }
      }
    }
    return ticks;
  }
}
