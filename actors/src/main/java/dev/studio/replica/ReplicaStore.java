package dev.studio.replica;

import dev.studio.bus.Notify;
import dev.studio.db.Database;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** The SQL of the replica registry. Every liveness time is the database's {@code now()}. */
public final class ReplicaStore {
  /** The signal-cache kind of the replica list. */
  public static final String CACHE_KIND = "replicas";
  private final Database db;

  public ReplicaStore(Database db) {
    this.db = db;
  }

  /** Registers this process as {@code starting}. */
  /**
   * Registers this process as {@code starting}. Only the columns of the first schema version are
   * written, so a build whose schema is behind still registers and serves its probes.
   */
  public void register(String id, String host, String version, boolean safeMode) throws SQLException {
    db.inTransaction(c -> Database.update(c, """
        INSERT INTO studio_replica (id, host, version, state, safe_mode, started_at, heartbeat_at)
        VALUES (?, ?, ?, 'starting', ?, now(), now())
        ON CONFLICT (id) DO UPDATE SET host = excluded.host, version = excluded.version,
          state = 'starting', safe_mode = excluded.safe_mode, started_at = now(), heartbeat_at = now(),
          stopped_at = NULL""", id, host, version, safeMode) + signalChanged(c));
  }

  /**
   * Records the key of the liveness lock this replica's bus holds; false while the schema lacks the
   * column (it is behind: no leases for this replica until it is migrated).
   */
  public boolean recordLockKey(String id, long lockKey) throws SQLException {
    try {
      db.update("UPDATE studio_replica SET lock_key = ? WHERE id = ?", lockKey, id);
      return true;
    } catch (SQLException e) {
      if ("42703".equals(e.getSQLState())) return false; // undefined_column
      throw e;
    }
  }

  /** Every replica's cached replica list is invalidated when this transaction commits. */
  private static int signalChanged(java.sql.Connection c) throws SQLException {
    Notify.signal(c, CACHE_KIND, "*");
    return 0;
  }

  /**
   * Crashes of this host inside the window: replicas that started there recently, are gone, and
   * never recorded a stop. A clean stop is not a crash, and neither is a boot.
   */
  public int recentCrashes(String host, Duration window, Duration goneAfter) throws SQLException {
    return db.queryOne("""
        SELECT count(*) FROM studio_replica
        WHERE host = ? AND state <> 'stopped'
          AND started_at > now() - make_interval(secs => ?)
          AND heartbeat_at < now() - make_interval(secs => ?)""",
        rs -> rs.getInt(1), host, seconds(window), seconds(goneAfter)).orElse(0);
  }

  public void heartbeat(String id, Duration timeout) throws SQLException {
    db.withTimeout(timeout, c -> Database.update(c, "UPDATE studio_replica SET heartbeat_at = now() WHERE id = ?", id));
  }

  public void setState(String id, ReplicaState state) throws SQLException {
    db.inTransaction(c -> Database.update(c, """
        UPDATE studio_replica SET state = ?, heartbeat_at = now(),
          stopped_at = CASE WHEN ? = 'stopped' THEN now() ELSE stopped_at END
        WHERE id = ?""", state.sql(), state.sql(), id) + signalChanged(c));
  }

  public List<ReplicaView> list(Duration goneAfter, int limit) throws SQLException {
    return db.query("""
        SELECT id, host, version, state, safe_mode, started_at, stopped_at,
               (extract(epoch FROM now() - heartbeat_at) * 1000)::bigint AS age_ms,
               CASE WHEN state = 'stopped' THEN 'clean'
                    WHEN heartbeat_at < now() - make_interval(secs => ?) THEN 'crash' END AS ended
        FROM studio_replica ORDER BY started_at DESC, id LIMIT ?""",
        rs -> new ReplicaView(rs.getString("id"), rs.getString("host"), rs.getString("version"),
            rs.getString("state"), rs.getBoolean("safe_mode"), rs.getLong("age_ms"),
            instant(rs.getTimestamp("started_at")), instant(rs.getTimestamp("stopped_at")),
            rs.getString("ended")),
        seconds(goneAfter), limit);
  }

  /** Forgets replicas that ended (cleanly or not) longer ago than the retention. */
  public int prune(Duration retention) throws SQLException {
    return db.update("""
        DELETE FROM studio_replica
        WHERE heartbeat_at < now() - make_interval(secs => ?)""", seconds(retention));
  }

  private static double seconds(Duration d) {
    return d.toMillis() / 1000.0;
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }
}
