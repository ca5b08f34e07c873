package dev.studio.settings;

import com.typesafe.config.Config;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/** Every setting of {@code studio { … }}, parsed once at startup into immutable records. */
public record StudioSettings(
    Replica replica,
    Db db,
    boolean migrateAtStartup,
    Http http,
    Readiness readiness,
    Bus bus,
    Lease lease,
    Stream stream,
    Drain drain,
    Duties duties,
    Auth auth) {

  /**
   * {@code adminToken}: the first admin token when set (else one is created and printed once);
   * {@code streamRecheck}: how often open streams' tokens are checked again (a bus signal checks at once);
   * {@code ratePerSecond}/{@code rateBurst}: per token on this replica, 0 turns the limit off.
   */
  public record Auth(Optional<String> adminToken, Duration ticketTtl, Duration streamRecheck, long ratePerSecond,
      long rateBurst, Duration idempotencyTtl) {}

  /** The duties to run per owned cluster, their intervals, and the broker client's limits. */
  public record Duties(java.util.List<String> names, Duration tierA, Duration tierB, Duration brokerTimeout,
      int brokerConcurrency) {}

  public static final String DB_DISPATCHER = "studio.db-dispatcher";
  public static final String DUTY_DISPATCHER = "studio.duty-dispatcher";

  public record Replica(String id, String host, Duration heartbeatInterval, Duration goneAfter,
      Duration retention, int crashLoopThreshold, Duration crashLoopWindow) {}

  /** {@code url} empty means the embedded default. */
  public record Db(Optional<String> url, String user, String password, Path dataDir, int embeddedPort,
      int poolSize, Duration connectionTimeout, Duration connectTimeout) {}

  public record Http(String host, int port, long maxBody, int maxConnections) {}

  public record Readiness(Duration timeout, Duration cacheTtl) {}

  /** {@code url} empty: the LISTEN connection goes where the pool goes. */
  public record Bus(Optional<String> url, Duration downUnreadyAfter, Duration reconnectMinBackoff, Duration reconnectMaxBackoff,
      Duration pingInterval, Duration pingTimeout, Duration cacheTtl) {}

  public record Lease(Duration renewInterval, Duration ttl, Duration lostAfter, Duration liveCheckInterval) {}

  public record Stream(int replayCap, Duration retention, Duration heartbeat, int clientBuffer,
      Duration retry, Duration pruneInterval) {}

  public record Drain(Duration lbGrace, Duration requestDeadline, Duration runGrace, Duration recoveryInterval) {}

  public static StudioSettings from(Config root) {
    Config c = root.getConfig("studio");
    Config r = c.getConfig("replica");
    Config d = c.getConfig("db");
    Optional<String> url = optional(d.getString("url"));
    var settings = new StudioSettings(
        new Replica(
            orElse(r.getString("id"), UUID.randomUUID().toString()),
            orElse(r.getString("host"), localHost()),
            r.getDuration("heartbeat-interval"),
            r.getDuration("gone-after"),
            r.getDuration("retention"),
            r.getInt("crash-loop.threshold"),
            r.getDuration("crash-loop.window")),
        new Db(
            url,
            d.getString("user"),
            d.getString("password"),
            Path.of(d.getString("data-dir")).toAbsolutePath().normalize(),
            d.getInt("embedded-port"),
            d.getInt("pool-size"),
            d.getDuration("connection-timeout"),
            d.getDuration("connect-timeout")),
        c.getBoolean("migrations.at-startup"),
        new Http(c.getString("http.host"), c.getInt("http.port"), c.getBytes("http.max-body"),
            c.getInt("http.max-connections")),
        new Readiness(c.getDuration("readiness.timeout"), c.getDuration("readiness.cache-ttl")),
        new Bus(optional(c.getString("bus.url")), c.getDuration("bus.down-unready-after"), c.getDuration("bus.reconnect-min-backoff"),
            c.getDuration("bus.reconnect-max-backoff"), c.getDuration("bus.ping-interval"),
            c.getDuration("bus.ping-timeout"), c.getDuration("bus.cache-ttl")),
        new Lease(c.getDuration("lease.renew-interval"), c.getDuration("lease.ttl"),
            c.getDuration("lease.lost-after"), c.getDuration("lease.live-check-interval")),
        new Stream(c.getInt("stream.replay-cap"), c.getDuration("stream.retention"),
            c.getDuration("stream.heartbeat"), c.getInt("stream.client-buffer"), c.getDuration("stream.retry"),
            c.getDuration("stream.prune-interval")),
        new Drain(c.getDuration("drain.lb-grace"), c.getDuration("drain.request-deadline"),
            c.getDuration("drain.run-grace"), c.getDuration("drain.recovery-interval")),
        new Duties(c.getStringList("duties"), c.getDuration("scrape.tier-a"), c.getDuration("scrape.tier-b"),
            c.getDuration("broker.request-timeout"), c.getInt("broker.max-concurrent")),
        new Auth(optional(c.getString("auth.admin-token")), c.getDuration("auth.ticket-ttl"),
            c.getDuration("auth.stream-recheck"), c.getLong("auth.rate-limit.per-second"),
            c.getLong("auth.rate-limit.burst"), c.getDuration("auth.idempotency-ttl")));
    settings.validate();
    return settings;
  }

  /** Refuses settings that would break an invariant, with a message an operator can act on. */
  private void validate() {
    require(!lease.lostAfter().isZero() && lease.lostAfter().compareTo(lease.ttl()) < 0,
        "studio.lease.lost-after must be positive and below studio.lease.ttl");
    require(lease.renewInterval().compareTo(lease.lostAfter()) < 0,
        "studio.lease.renew-interval must be below studio.lease.lost-after");
    require(replica.heartbeatInterval().compareTo(replica.goneAfter()) < 0,
        "studio.replica.heartbeat-interval must be below studio.replica.gone-after");
    require(http.port() >= 0 && http.port() <= 65535, "studio.http.port must be 0..65535");
    require(bus.pingInterval().compareTo(bus.pingTimeout()) < 0,
        "studio.bus.ping-interval must be below studio.bus.ping-timeout");
    require(stream.replayCap() > 0 && stream.clientBuffer() > 0,
        "studio.stream.replay-cap and studio.stream.client-buffer must be positive");
    require(auth.streamRecheck().compareTo(Duration.ofSeconds(5)) <= 0 && !auth.streamRecheck().isZero(),
        "studio.auth.stream-recheck must be positive and at most 5s (a revoked token's stream is cut within 5 s)");
    require(auth.ratePerSecond() >= 0 && auth.rateBurst() >= auth.ratePerSecond(),
        "studio.auth.rate-limit.burst must be at least studio.auth.rate-limit.per-second (0 turns the limit off)");
    require(auth.adminToken().map(t -> t.length() >= 16).orElse(true),
        "STUDIO_ADMIN_TOKEN must be at least 16 characters");
    require(replica.crashLoopThreshold() > 0, "studio.replica.crash-loop.threshold must be positive");
  }

  private static void require(boolean ok, String message) {
    if (!ok) throw new IllegalArgumentException(message);
  }

  private static Optional<String> optional(String value) {
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }

  private static String orElse(String value, String fallback) {
    return value == null || value.isBlank() ? fallback : value.trim();
  }

  private static String localHost() {
    String env = System.getenv("HOSTNAME");
    if (env != null && !env.isBlank()) return env;
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown-host";
    }
  }
}
