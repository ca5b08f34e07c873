package dev.studio.bench;

import dev.studio.testing.StudioProcess;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * handover / takeover / takeover-hung: per-cluster times from the signal until another replica owns
 * each of A's clusters (polling {@code cluster_lease} every few ms). rebalance: N = 2…5 replicas, one
 * joins: the fraction of clusters that changed owner, against the ideal 1/(N+1).
 */
final class Placement {
  private Placement() {}

  /** Live owner per cluster id. */
  static Map<String, String> owners(Cluster c) throws Exception {
    Map<String, String> out = new HashMap<>();
    try (Connection conn = c.pg.connect(c.database); Statement st = conn.createStatement();
         ResultSet rs = st.executeQuery("SELECT cluster_id, replica_id FROM cluster_lease WHERE expires_at > now()")) {
      while (rs.next()) out.put(rs.getString(1), rs.getString(2));
    }
    return out;
  }

  /** SIGTERM, SIGKILL or SIGSTOP the owner of about half of 1,000 clusters; per-cluster time to a new owner. */
  static void handover(String signal) throws Exception {
    try (Cluster c = new Cluster()) {
      String[] props = {"studio.scrape.tier-a", "1h", "studio.scrape.tier-b", "1h", "studio.drain.lb-grace", "1s"};
      StudioProcess a = c.start("ho-a", props);
      StudioProcess b = c.start("ho-b", props);
      Leases.addClusters(c, Leases.CLUSTERS);
      String idA = Leases.idOf(a);
      String idB = Leases.idOf(b);
      long settle = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      Map<String, String> before = owners(c);
      while (before.size() < Leases.CLUSTERS && System.nanoTime() < settle) {
        Thread.sleep(100);
        before = owners(c);
      }
      awaitFirstScrapes(c, Leases.CLUSTERS); // steady state: the owners' first broker calls and state writes are behind us
      List<String> ofA = new ArrayList<>();
      before.forEach((cluster, owner) -> {
        if (owner.equals(idA)) ofA.add(cluster);
      });
      Map<String, Long> movedAt = new HashMap<>();
      long t0 = System.nanoTime();
      a.signal(signal);
      long deadline = t0 + Duration.ofSeconds(60).toNanos();
      while (movedAt.size() < ofA.size() && System.nanoTime() < deadline) {
        Map<String, String> now = owners(c);
        long at = System.nanoTime() - t0;
        for (String cluster : ofA) {
          if (!movedAt.containsKey(cluster) && idB.equals(now.get(cluster))) movedAt.put(cluster, at);
        }
        Thread.sleep(2);
      }
      long[] times = movedAt.values().stream().mapToLong(Long::longValue).toArray();
      Stats s = new Stats(times, times.length);
      String what = switch (signal) {
        case "TERM" -> "handover (SIGTERM A)";
        case "KILL" -> "takeover (SIGKILL A)";
        default -> "takeover of a hung owner (SIGSTOP A)";
      };
      System.out.printf("%s: %d of A's %d clusters owned by B; per cluster %s%n", what, movedAt.size(), ofA.size(), s.summary());
      if (signal.equals("STOP")) a.signal("KILL");
      if (signal.equals("TERM")) a.awaitExit(Duration.ofSeconds(30));
    }
  }

  /** Until every cluster has a state row: the owners' first broker calls and state writes are behind us. */
  static void awaitFirstScrapes(Cluster c, int clusters) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (System.nanoTime() < deadline) {
      try (Connection conn = c.pg.connect(c.database); Statement st = conn.createStatement();
           ResultSet rs = st.executeQuery("SELECT count(DISTINCT cluster_id) FROM cluster_state")) {
        rs.next();
        if (rs.getInt(1) >= clusters) break;
      }
      Thread.sleep(200);
    }
    Thread.sleep(1_000);
  }

  static void rebalance() throws Exception {
    try (Cluster c = new Cluster()) {
      String[] props = {"studio.scrape.tier-a", "1h", "studio.scrape.tier-b", "1h"};
      List<StudioProcess> live = new ArrayList<>();
      live.add(c.start("rb-1", props));
      live.add(c.start("rb-2", props));
      Leases.addClusters(c, Leases.CLUSTERS);
      for (int n = 2; n <= 5; n++) {
        Map<String, String> before = settled(c, n);
        live.add(c.start("rb-" + (n + 1), props));
        Map<String, String> after = settled(c, n + 1);
        int moved = 0;
        for (var e : before.entrySet()) {
          if (!e.getValue().equals(after.get(e.getKey()))) moved++;
        }
        double fraction = moved / (double) before.size();
        double ideal = 1.0 / (n + 1);
        System.out.printf("rebalance N=%d -> %d: %d of %d clusters moved (%.3f); ideal 1/(N+1) = %.3f; ratio %.2f x ideal%n",
            n, n + 1, moved, before.size(), fraction, ideal, fraction / ideal);
      }
    }
  }

  /** The placement once every cluster is owned by one of {@code n} replicas and nothing moved for 3 s. */
  private static Map<String, String> settled(Cluster c, int n) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    Map<String, String> last = Map.of();
    long stableSince = System.nanoTime();
    while (System.nanoTime() < deadline) {
      Map<String, String> now = owners(c);
      boolean complete = now.size() == Leases.CLUSTERS && new java.util.HashSet<>(now.values()).size() == n;
      if (!now.equals(last)) {
        last = now;
        stableSince = System.nanoTime();
      } else if (complete && System.nanoTime() - stableSince > Duration.ofSeconds(3).toNanos()) {
        return now;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("placement over " + n + " replicas did not settle: " + last.size() + " owned");
  }
}
