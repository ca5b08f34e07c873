package dev.studio.lease;

import dev.studio.bus.Notify;
import dev.studio.db.Database;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The lease SQL. Liveness and expiry are the database's {@code now()}; a replica is live when it is
 * {@code ready}, its heartbeat is fresh, and its session advisory lock is still held — PostgreSQL
 * drops that lock the instant the replica's LISTEN connection dies.
 */
public final class LeaseStore {
  public static final String SIGNAL_KIND = "leases";

  /** The live replicas (a SQL fragment shared by the live-set read and the acquisition guard). */
  static final String LIVE = """
      SELECT r.id FROM studio_replica r
      WHERE r.state = 'ready' AND r.heartbeat_at > now() - make_interval(secs => ?)
        AND r.lock_key IS NOT NULL
        AND EXISTS (SELECT 1 FROM pg_locks l
                    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                      AND l.classid = ((r.lock_key >> 32) & 4294967295)::text::oid
                      AND l.objid = (r.lock_key & 4294967295)::text::oid)""";

  /** A lease as seen by the API. */
  public record LeaseView(UUID clusterId, String owner, long token, long expiresInMs) {}

  private final Database db;
  private final String replicaId;
  private final double ttlSeconds;
  private final double goneAfterSeconds;

  public LeaseStore(Database db, String replicaId, Duration ttl, Duration goneAfter) {
    this.db = db;
    this.replicaId = replicaId;
    this.ttlSeconds = ttl.toMillis() / 1000.0;
    this.goneAfterSeconds = goneAfter.toMillis() / 1000.0;
  }

  public List<String> live(Connection c) throws SQLException {
    return Database.query(c, LIVE + " ORDER BY r.id", rs -> rs.getString(1), goneAfterSeconds);
  }

  public List<UUID> clusters(Connection c) throws SQLException {
    return Database.query(c, "SELECT id FROM cluster", rs -> rs.getObject(1, UUID.class));
  }

  /** Renews all of this replica's leases in one statement, each conditioned on owner and token. */
  public Map<UUID, Long> renew(Connection c, Map<UUID, Long> held) throws SQLException {
    Map<UUID, Long> renewed = new HashMap<>();
    if (held.isEmpty()) return renewed;
    Database.query(c, """
        UPDATE cluster_lease l SET renewed_at = now(), expires_at = now() + make_interval(secs => ?)
        FROM unnest(?::uuid[], ?::bigint[]) AS mine(cluster_id, token)
        WHERE l.cluster_id = mine.cluster_id AND l.token = mine.token AND l.replica_id = ?
          AND l.expires_at > now()
        RETURNING l.cluster_id, l.token""",
        rs -> renewed.put(rs.getObject(1, UUID.class), rs.getLong(2)),
        ttlSeconds, c.createArrayOf("uuid", held.keySet().toArray()), c.createArrayOf("bigint", held.values().toArray()),
        replicaId);
    return renewed;
  }

  /**
   * Acquires the clusters whose lease is free, expired, or held by a replica that is not live
   * (gone, crashed, draining); the token grows by one on every acquisition. A lease that still names
   * this replica is taken again too: it is only asked for when this replica no longer holds it (lost
   * after a failed renewal or a bus outage), and the new token fences out whatever ran under the old.
   */
  public Map<UUID, Long> acquire(Connection c, Collection<UUID> wanted) throws SQLException {
    Map<UUID, Long> won = new HashMap<>();
    if (wanted.isEmpty()) return won;
    Database.query(c, """
        INSERT INTO cluster_lease AS l (cluster_id, replica_id, token, renewed_at, expires_at)
        SELECT w.id, ?, 1, now(), now() + make_interval(secs => ?)
        FROM unnest(?::uuid[]) AS w(id) JOIN cluster k ON k.id = w.id
        ON CONFLICT (cluster_id) DO UPDATE
          SET replica_id = excluded.replica_id, token = l.token + 1, renewed_at = now(), expires_at = excluded.expires_at
          WHERE l.replica_id = excluded.replica_id
             OR l.expires_at <= now() OR l.replica_id NOT IN (""" + LIVE + ")\n"
            + "        RETURNING l.cluster_id, l.token",
        rs -> won.put(rs.getObject(1, UUID.class), rs.getLong(2)),
        replicaId, ttlSeconds, c.createArrayOf("uuid", wanted.toArray()), goneAfterSeconds);
    return won;
  }

  /** Releases leases (owner and token must match) and signals the others to take them at once. */
  public int release(Connection c, Map<UUID, Long> leases) throws SQLException {
    if (leases.isEmpty()) return 0;
    int n = Database.update(c, """
        UPDATE cluster_lease l SET expires_at = '-infinity'
        FROM unnest(?::uuid[], ?::bigint[]) AS mine(cluster_id, token)
        WHERE l.cluster_id = mine.cluster_id AND l.token = mine.token AND l.replica_id = ?""",
        c.createArrayOf("uuid", leases.keySet().toArray()), c.createArrayOf("bigint", leases.values().toArray()), replicaId);
    Notify.signal(c, SIGNAL_KIND, "released");
    return n;
  }

  /** The cluster rows for these ids (to start their owners with current settings). */
  public List<dev.studio.cluster.Cluster> load(Connection c, java.util.Set<UUID> ids) throws SQLException {
    if (ids.isEmpty()) return List.of();
    return Database.query(c, "SELECT * FROM cluster WHERE id = ANY(?)", dev.studio.cluster.ClusterStore::row,
        c.createArrayOf("uuid", ids.toArray()));
  }

  public List<LeaseView> list(int limit) throws SQLException {
    return db.query("""
        SELECT cluster_id, replica_id, token,
               greatest(0, (extract(epoch FROM expires_at - now()) * 1000))::bigint
        FROM cluster_lease WHERE expires_at > now() ORDER BY cluster_id LIMIT ?""",
        rs -> new LeaseView(rs.getObject(1, UUID.class), rs.getString(2), rs.getLong(3), rs.getLong(4)), limit);
  }

  Database db() {
    return db;
  }
}
