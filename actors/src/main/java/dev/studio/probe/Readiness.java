package dev.studio.probe;

import dev.studio.db.Database;
import dev.studio.migrations.Migrator;
import dev.studio.migrations.SchemaStatus;
import dev.studio.replica.ReplicaState;
import dev.studio.replica.ReplicaStatus;
import dev.studio.settings.StudioSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Answers {@code /readyz}: the replica's state, the database within {@code readiness.timeout}, the
 * schema not behind the build, and any further checks components add (the bus, later). Answers
 * are cached for {@code readiness.cache-ttl} and at most one database check is in flight, so a
 * database that hangs costs one blocked thread, not one per probe.
 */
public final class Readiness implements AutoCloseable {

  public record Check(String name, boolean ok, String reason) {}

  public record Report(boolean ready, List<Check> checks, boolean safeMode) {}

  private final ReplicaStatus status;
  private final Database db;
  private final Migrator migrator;
  private final StudioSettings.Readiness settings;
  private final List<Supplier<Check>> memoryChecks = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final ExecutorService dbThread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "studio-readiness");
    t.setDaemon(true);
    return t;
  });
  private CompletableFuture<List<Check>> inFlight;
  private CompletableFuture<Report> cached;
  private long cachedAtNanos;

  public Readiness(ReplicaStatus status, Database db, Migrator migrator, StudioSettings.Readiness settings) {
    this.status = status;
    this.db = db;
    this.migrator = migrator;
    this.settings = settings;
  }

  /** Adds a check answered from memory (for example "bus down for more than 10 s"). */
  public void addCheck(Supplier<Check> check) {
    memoryChecks.add(check);
  }

  public synchronized CompletableFuture<Report> check() {
    long now = System.nanoTime();
    // draining must show at once, whatever is cached
    boolean refusing = status.state() == ReplicaState.DRAINING || status.state() == ReplicaState.STOPPED;
    if (!refusing && cached != null && now - cachedAtNanos < settings.cacheTtl().toNanos()) return cached;
    cachedAtNanos = now;
    cached = databaseChecks().thenApply(this::report);
    return cached;
  }

  private Report report(List<Check> dbChecks) {
    List<Check> checks = new ArrayList<>();
    ReplicaState state = status.state();
    checks.add(new Check("replica", state == ReplicaState.READY, state.sql()));
    checks.addAll(dbChecks);
    for (Supplier<Check> c : memoryChecks) checks.add(c.get());
    boolean ready = checks.stream().allMatch(Check::ok);
    return new Report(ready, List.copyOf(checks), status.safeMode());
  }

  private CompletableFuture<List<Check>> databaseChecks() {
    Duration timeout = settings.timeout();
    if (inFlight == null || inFlight.isDone()) {
      inFlight = CompletableFuture.supplyAsync(this::queryDatabase, dbThread);
    }
    return inFlight.copy().completeOnTimeout(List.of(
        new Check("database", false, "no answer within " + timeout.toMillis() + " ms"),
        new Check("schema", false, "unknown: the database did not answer")), timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private List<Check> queryDatabase() {
    try {
      SchemaStatus schema = db.withTimeout(settings.timeout(), migrator::inspect);
      String build = migrator.build().version();
      if (schema.minBuild() != null && dev.studio.migrations.BuildInfo.compare(build, schema.minBuild()) < 0) {
        // a newer build contracted the schema past us during a rolling update: stop taking traffic
        return List.of(new Check("database", true, "answered"), new Check("schema", false,
            "schema needs build " + schema.minBuild() + " or newer; this is " + build));
      }
      return List.of(new Check("database", true, "answered"),
          new Check("schema", !schema.behind(), schema.describe()));
    } catch (Exception e) {
      String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      return List.of(new Check("database", false, reason),
          new Check("schema", false, "unknown: the database did not answer"));
    }
  }

  @Override
  public void close() {
    dbThread.shutdownNow();
  }
}
