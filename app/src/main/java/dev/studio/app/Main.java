package dev.studio.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.studio.StudioGuardian;
import dev.studio.auth.AuditLog;
import dev.studio.auth.IdempotencyStore;
import dev.studio.auth.RateLimits;
import dev.studio.auth.StreamTickets;
import dev.studio.auth.TokenStore;
import dev.studio.auth.TokenWatch;
import dev.studio.bus.Bus;
import dev.studio.bus.BusMetrics;
import dev.studio.bus.BusStatus;
import dev.studio.bus.FramePublisher;
import dev.studio.cache.SignalCache;
import dev.studio.cluster.ClusterStore;
import dev.studio.cluster.ClusterViews;
import dev.studio.duty.DutyRegistry;
import dev.studio.lease.LeaseStore;
import dev.studio.run.RunStore;
import dev.studio.stream.FrameStore;
import dev.studio.stream.SseHub;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.DispatcherSelector;
import dev.studio.db.Database;
import dev.studio.drain.DrainCoordinator;
import dev.studio.http.HttpServer;
import dev.studio.metrics.Metrics;
import dev.studio.migrations.BuildInfo;
import dev.studio.migrations.IncompatibleSchemaException;
import dev.studio.migrations.Migrator;
import dev.studio.migrations.SchemaStatus;
import dev.studio.probe.Readiness;
import dev.studio.replica.CrashLoopGuard;
import dev.studio.replica.ReplicaRegistry;
import dev.studio.replica.ReplicaState;
import dev.studio.replica.ReplicaStatus;
import dev.studio.replica.ReplicaStore;
import dev.studio.replica.ReplicaView;
import dev.studio.settings.StudioSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code studio [serve|migrate|replicas]}. Exit codes: 0 clean, 1 failure, 2 usage, 3 the schema
 * needs a newer build.
 */
public final class Main {
  private static final Logger log = LoggerFactory.getLogger(Main.class);
  static final int EXIT_FAILURE = 1;
  static final int EXIT_USAGE = 2;
  static final int EXIT_INCOMPATIBLE = 3;
  /** How long a starting replica waits for its database before giving up. */
  private static final Duration STARTUP_DB_WAIT = Duration.ofSeconds(60);

  private Main() {}

  public static void main(String[] args) {
    String command = args.length == 0 ? "serve" : args[0];
    try {
      switch (command) {
        case "serve" -> serve();
        case "migrate" -> System.exit(migrate());
        case "replicas" -> System.exit(replicas());
        case "token" -> System.exit(TokenCommand.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
        case "help", "--help", "-h" -> System.out.println(usage());
        default -> {
          System.err.println("unknown command: " + command + "\n" + usage());
          System.exit(EXIT_USAGE);
        }
      }
    } catch (IncompatibleSchemaException e) {
      log.error("refusing to start: {}", e.getMessage());
      System.exit(EXIT_INCOMPATIBLE);
    } catch (Exception e) {
      log.error("studio {} failed: {}", command, e.getMessage(), e);
      System.exit(EXIT_FAILURE);
    }
  }

  private static String usage() {
    return """
        usage: studio [command]
          serve     run a replica (the default)
          migrate   apply database migrations and exit
          replicas  list the replicas the database knows and exit
          token     create, list or revoke API tokens (studio token help)""";
  }

  private static void serve() throws Exception {
    Config config = ConfigFactory.load();
    StudioSettings settings = StudioSettings.from(config);
    BuildInfo build = BuildInfo.current();
    String id = settings.replica().id();
    log.info("studio {} starting as replica {} on host {}", build.version(), id, settings.replica().host());

    Metrics metrics = new Metrics(id);
    Storage storage = Storage.open(settings, "studio-" + id, metrics);
    Database db = storage.db();
    Migrator migrator = new Migrator(db.dataSource(), build);
    SchemaStatus schema = awaitDatabase(() ->
        settings.migrateAtStartup() ? migrator.migrate() : migrator.inspect());
    log.info("schema: {}", schema.describe());

    ReplicaStore store = new ReplicaStore(db);
    boolean safeMode = CrashLoopGuard.safeMode(store, settings.replica());
    ReplicaStatus status = new ReplicaStatus(id, safeMode);
    store.register(id, settings.replica().host(), build.version(), safeMode);
    store.recordLockKey(id, status.lockKey()); // before the bus takes the lock: the live set needs both
    store.prune(settings.replica().retention());
    TokenStore tokens = new TokenStore(db);
    StreamTickets tickets = new StreamTickets(db, settings.auth().ticketTtl());
    DutyRegistry duties = DutyRegistry.load(settings.duties().names(), Main.class.getClassLoader());
    log.info("duties per owned cluster: {}{}", duties.names(), safeMode ? " (safe mode: built-in only)" : "");

    // the bus: its subscribers are in place before it first connects
    BusStatus busStatus = new BusStatus();
    BusMetrics busMetrics = new BusMetrics(metrics.registry(), busStatus);
    Bus.Subscribers subscribers = new Bus.Subscribers();
    SignalCache<List<ReplicaView>> replicaCache = new SignalCache<>(ReplicaStore.CACHE_KIND, settings.bus().cacheTtl());
    subscribers.add(replicaCache);
    FramePublisher frames = new FramePublisher(db, busMetrics);

    CompletableFuture<StudioGuardian.Children> children = new CompletableFuture<>();
    var wiring = new StudioGuardian.Wiring(settings, db, store, status, metrics, busStatus, busMetrics, subscribers,
        frames, duties);
    ActorSystem<StudioGuardian.Command> system = ActorSystem.create(StudioGuardian.create(wiring, children), "studio", config);
    StudioGuardian.Children started = children.get(10, TimeUnit.SECONDS);
    ActorRef<ReplicaRegistry.Command> registry = started.registry();
    scala.concurrent.ExecutionContextExecutor jdbc = system.dispatchers().lookup(DispatcherSelector.fromConfig(StudioSettings.DB_DISPATCHER));
    SseHub hub = new SseHub(frames, new FrameStore(db), settings.stream(), jdbc, system, metrics.registry());
    subscribers.add(hub);
    TokenWatch watch = new TokenWatch(tokens, jdbc);
    subscribers.add(watch);
    Duration recheck = settings.auth().streamRecheck();
    system.scheduler().scheduleWithFixedDelay(recheck, recheck, watch::checkNow, jdbc);
    IdempotencyStore idempotency = new IdempotencyStore(db, settings.auth().idempotencyTtl());
    system.scheduler().scheduleWithFixedDelay(Duration.ofMinutes(1), Duration.ofMinutes(10), () -> {
      try {
        idempotency.prune();
      } catch (Exception e) {
        log.warn("idempotency key pruning failed: {}", e.getMessage());
      }
    }, jdbc);
    bootstrapTokens(system, tokens, settings.auth().adminToken(), jdbc);
    AuditLog audit = new AuditLog(db, id);
    var security = new HttpServer.Security(tokens, tickets,
        new RateLimits(settings.auth().ratePerSecond(), settings.auth().rateBurst()), idempotency, audit, watch);

    Readiness readiness = new Readiness(status, db, migrator, settings.readiness());
    readiness.addCheck(() -> {
      Duration down = busStatus.downFor();
      boolean ok = down.compareTo(settings.bus().downUnreadyAfter()) <= 0;
      return new Readiness.Check("bus", ok, busStatus.connected() ? "listening"
          : "down for " + down.toMillis() + " ms" + (ok ? " (unready after " + settings.bus().downUnreadyAfter().toMillis() + " ms)" : ""));
    });
    DrainCoordinator drain = DrainCoordinator.install(system, status, registry, started.ownership(), started.runs(),
        settings.drain());
    // Pekko exits the JVM (exit-code 0) once the drain is done; the pool and database close last.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      readiness.close();
      frames.close();
      audit.close();
      storage.close();
    }, "studio-storage-close"));
    Signals.onTerminate(() -> CoordinatedShutdown.get(system).run(Signals.SIGNAL));

    var services = new HttpServer.Services(settings, status, readiness, metrics, store, replicaCache, hub,
        new FrameStore(db), new ClusterStore(db), new ClusterViews(db),
        new LeaseStore(db, id, settings.lease().ttl(), settings.replica().goneAfter()), new RunStore(db), started.runs(), security);
    var binding = HttpServer.start(system, services, drain).toCompletableFuture().get(30, TimeUnit.SECONDS);
    log.info("listening on http://{}:{}", settings.http().host(), binding.localAddress().getPort());

    AskPattern.<ReplicaRegistry.Command, Done>ask(registry,
            replyTo -> new ReplicaRegistry.ChangeState(ReplicaState.READY, replyTo),
            Duration.ofMinutes(10), system.scheduler())
        .thenRun(() -> log.info("replica {} ready{}", id, safeMode ? " (SAFE MODE)" : ""));
  }

  /**
   * The first admin token. A replica started on a schema that is behind (migrations off) has no
   * token table yet: it keeps trying until someone runs {@code studio migrate}.
   */
  private static void bootstrapTokens(ActorSystem<?> system, TokenStore tokens, java.util.Optional<String> adminToken,
      scala.concurrent.ExecutionContextExecutor jdbc) {
    try {
      tokens.bootstrap(adminToken).ifPresent(Main::printFirstToken);
    } catch (Exception e) {
      log.warn("API tokens not set up yet ({}); retrying in 5 s", e.getMessage());
      system.scheduler().scheduleOnce(Duration.ofSeconds(5), () -> bootstrapTokens(system, tokens, adminToken, jdbc), jdbc);
    }
  }

  /** The only time this secret is shown: only its hash is stored. */
  private static void printFirstToken(TokenStore.Created created) {
    System.out.println("""
        ================================================================================
        First start: an admin API token was created. It is shown this once; store it now.
          STUDIO_ADMIN_TOKEN=%s
        Use it as: Authorization: Bearer <token>   (more: studio token create --name N --role R)
        ================================================================================"""
        .formatted(created.secret()));
    log.info("created the first admin token {} (printed once to standard output)", created.token().id());
  }

  private static int migrate() throws Exception {
    StudioSettings settings = StudioSettings.from(ConfigFactory.load());
    try (Storage storage = Storage.open(settings, "studio-migrate", null)) {
      SchemaStatus s = awaitDatabase(() -> new Migrator(storage.db().dataSource(), BuildInfo.current()).migrate());
      System.out.println(s.describe());
      return 0;
    }
  }

  private static int replicas() throws Exception {
    StudioSettings settings = StudioSettings.from(ConfigFactory.load());
    try (Storage storage = Storage.open(settings, "studio-cli", null)) {
      List<ReplicaView> all = new ReplicaStore(storage.db()).list(settings.replica().goneAfter(), 500);
      System.out.printf("%-36s  %-20s  %-8s  %-8s  %10s  %-25s  %s%n",
          "ID", "HOST", "VERSION", "STATE", "HEARTBEAT", "STARTED", "ENDED");
      for (ReplicaView r : all) {
        System.out.printf("%-36s  %-20s  %-8s  %-8s  %9.1fs  %-25s  %s%n", r.id(), r.host(), r.version(),
            r.state(), r.heartbeatAgeMs() / 1000.0, r.startedAt(), r.ended() == null ? "-" : r.ended());
      }
      return 0;
    }
  }

  /** The database could not be reached (worth waiting for), as opposed to a real error. */
  static boolean unreachable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.ConnectException || t instanceof java.sql.SQLTransientConnectionException) return true;
      if (t instanceof java.sql.SQLException sql && sql.getSQLState() != null
          && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P"))) {
        return true;
      }
    }
    return false;
  }

  interface Attempt<T> {
    T run() throws Exception;
  }

  /** A replica started before its database waits for it (bounded) instead of crash-looping. */
  private static <T> T awaitDatabase(Attempt<T> attempt) throws Exception {
    long deadline = System.nanoTime() + STARTUP_DB_WAIT.toNanos();
    long backoffMs = 250;
    while (true) {
      try {
        return attempt.run();
      } catch (Exception e) {
        if (!unreachable(e) || System.nanoTime() > deadline) throw e;
        log.warn("database not ready ({}); retrying in {} ms", e.getMessage(), backoffMs);
        Thread.sleep(backoffMs);
        backoffMs = Math.min(backoffMs * 2, 5000);
      }
    }
  }
}
