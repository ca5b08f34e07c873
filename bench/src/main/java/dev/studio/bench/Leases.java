package dev.studio.bench;

import dev.studio.testing.StudioProcess;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * lease-pass: the renewal pass with 1,000 clusters on one replica (p50/p99 from the replica's own
 * timer), and the helpers the placement benchmarks share. Clusters point at a closed port: the duties
 * record "unreachable" and cost little.
 */
final class Leases {
  static final int CLUSTERS = 1000;

  private Leases() {}

  static void addClusters(Cluster c, int n) throws Exception {
    try (Connection conn = c.pg.connect(c.database); Statement st = conn.createStatement()) {
      st.execute("INSERT INTO cluster (id, name, management_url, username, password_ref) "
          + "SELECT gen_random_uuid(), 'bench-' || g, 'http://127.0.0.1:9', 'u', 'env:NONE' FROM generate_series(1, " + n + ") g");
      st.execute("SELECT pg_notify('studio', '{\"t\":\"signal\",\"kind\":\"clusters\",\"key\":\"*\",\"ts\":0}')");
    }
  }

  static Map<String, Integer> ownersCount(Cluster c) throws Exception {
    Map<String, Integer> out = new HashMap<>();
    for (String owner : Placement.owners(c).values()) out.merge(owner, 1, Integer::sum);
    return out;
  }

  static String idOf(StudioProcess p) {
    String body = p.get("/livez").body();
    int i = body.indexOf("\"replica\":\"") + 11;
    return body.substring(i, body.indexOf('"', i));
  }

  static long awaitOwned(Cluster c, String by, int n, Duration limit) throws Exception {
    long start = System.nanoTime();
    while (System.nanoTime() - start < limit.toNanos()) {
      if (ownersCount(c).getOrDefault(by, 0) == n) return System.nanoTime() - start;
      Thread.sleep(5);
    }
    return -1;
  }

  static void pass() throws Exception {
    try (Cluster c = new Cluster()) {
      StudioProcess a = c.start("lease-a", "studio.scrape.tier-a", "1h", "studio.scrape.tier-b", "1h");
      addClusters(c, CLUSTERS);
      if (awaitOwned(c, idOf(a), CLUSTERS, Duration.ofSeconds(60)) < 0) throw new IllegalStateException("not all owned");
      Thread.sleep(30_000); // six renewal passes at the default interval
      String m = a.get("/metrics").body();
      double p50 = sample(m, "studio_leases_renewal_pass_seconds{", "quantile=\"0.5\"");
      double p99 = sample(m, "studio_leases_renewal_pass_seconds{", "quantile=\"0.99\"");
      System.out.printf("lease-pass with %d clusters on one replica: p50 %.1f ms, p99 %.1f ms (one renewal statement per pass)%n",
          CLUSTERS, p50 * 1000, p99 * 1000);
    }
  }

  static double sample(String metrics, String prefix, String label) {
    return metrics.lines().filter(l -> l.startsWith(prefix) && l.contains(label))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).findFirst().orElse(Double.NaN);
  }
}
