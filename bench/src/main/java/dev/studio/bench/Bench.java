package dev.studio.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code bench/run NAME}: runs one benchmark (or all) and prints its figures. */
public final class Bench {
  interface Benchmark {
    void run() throws Exception;
  }

  private static final Map<String, Benchmark> ALL = new LinkedHashMap<>();

  static {
    ALL.put("bus-latency", BusLatency::run);
    ALL.put("bus-throughput", BusThroughput::run);
    ALL.put("sse-fanout", Fanout::run);
    ALL.put("handover", () -> Placement.handover("TERM"));
    ALL.put("takeover", () -> Placement.handover("KILL"));
    ALL.put("takeover-hung", () -> Placement.handover("STOP"));
    ALL.put("lease-pass", Leases::pass);
    ALL.put("lease-cost", LeaseCost::run);
    ALL.put("rebalance", Placement::rebalance);
    ALL.put("startup", Startup::run);
  }

  private Bench() {}

  public static void main(String[] args) throws Exception {
    String name = args.length == 0 ? "list" : args[0];
    if (name.equals("list")) {
      System.out.println("benchmarks: " + String.join(", ", ALL.keySet()) + " (or: all)");
      return;
    }
    System.out.printf("# machine: %d cores, java %s, %s%n", Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"), java.time.LocalDate.now());
    if (name.equals("all")) {
      for (var e : ALL.entrySet()) runOne(e.getKey(), e.getValue());
    } else if (ALL.containsKey(name)) {
      runOne(name, ALL.get(name));
    } else {
      System.err.println("unknown benchmark " + name + "; benchmarks: " + ALL.keySet());
      System.exit(2);
    }
    System.exit(0);
  }

  private static void runOne(String name, Benchmark b) throws Exception {
    long t0 = System.nanoTime();
    System.out.println("## " + name);
    b.run();
    System.out.printf("## %s done in %.0f s%n", name, (System.nanoTime() - t0) / 1e9);
  }
}
