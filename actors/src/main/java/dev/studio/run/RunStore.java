package dev.studio.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.studio.bus.Notify;
import dev.studio.db.Database;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** The {@code bulk_run} table: progress, stop flags (set through any replica), outcomes, recovery. */
public final class RunStore {
  public static final String SIGNAL_KIND = "runs";
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Database db;

  public RunStore(Database db) {
    this.db = db;
  }

  public RunView create(String kind, UUID cluster, String replicaId, JsonNode params) throws SQLException {
    return db.queryOne("""
        INSERT INTO bulk_run (id, kind, cluster_id, replica_id, state, params) VALUES (?, ?, ?, ?, 'running', ?::jsonb)
        RETURNING *""", RunStore::row, UUID.randomUUID(), kind, cluster, replicaId, params.toString()).orElseThrow();
  }

  /** Stores progress; false if the run is no longer this replica's active run (recovered, finished). */
  public boolean progress(UUID id, String replicaId, int done, Integer total, String item) throws SQLException {
    return db.update("""
        UPDATE bulk_run SET done = ?, total = ?, current_item = ?, updated_at = now()
        WHERE id = ? AND replica_id = ? AND state IN ('running', 'stopping')""", done, total, item, id, replicaId) > 0;
  }

  public boolean stopRequested(UUID id) throws SQLException {
    return db.queryOne("SELECT stop_requested FROM bulk_run WHERE id = ?", rs -> rs.getBoolean(1), id).orElse(true);
  }

  public void finish(UUID id, String replicaId, String state, int done, String error, JsonNode result) throws SQLException {
    db.update("""
        UPDATE bulk_run SET state = ?, done = ?, error = ?, result = ?::jsonb, current_item = NULL, updated_at = now(),
          finished_at = now()
        WHERE id = ? AND replica_id = ? AND state IN ('running', 'stopping')""",
        state, done, error, result == null ? null : result.toString(), id, replicaId);
  }

  /** Any replica: sets the stop flag (the running replica stops before its next item) and signals. */
  public Optional<RunView> requestStop(UUID id) throws SQLException {
    return db.inTransaction(c -> {
      List<RunView> rows = Database.query(c, """
          UPDATE bulk_run SET stop_requested = true, updated_at = now(),
            state = CASE WHEN state = 'running' THEN 'stopping' ELSE state END
          WHERE id = ? RETURNING *""", RunStore::row, id);
      if (!rows.isEmpty()) Notify.signal(c, SIGNAL_KIND, id.toString());
      return rows.stream().findFirst();
    });
  }

  public Optional<RunView> get(UUID id) throws SQLException {
    return db.queryOne("SELECT * FROM bulk_run WHERE id = ?", RunStore::row, id);
  }

  public List<RunView> list(int limit) throws SQLException {
    return db.query("SELECT * FROM bulk_run ORDER BY created_at DESC, id LIMIT ?", RunStore::row, limit);
  }

  /**
   * Recovery: runs whose replica is gone (stopped, or heartbeat older than {@code goneAfter}) are
   * recorded {@code interrupted} with their progress. A live replica's runs are never touched.
   */
  public int interruptOrphans(Duration goneAfter) throws SQLException {
    return db.update("""
        UPDATE bulk_run b SET state = 'interrupted', updated_at = now(), finished_at = now(),
          error = 'the replica running it (' || b.replica_id || ') is gone'
        WHERE b.state IN ('running', 'stopping')
          AND NOT EXISTS (SELECT 1 FROM studio_replica r WHERE r.id = b.replica_id AND r.state <> 'stopped'
                            AND r.heartbeat_at > now() - make_interval(secs => ?))""", goneAfter.toMillis() / 1000.0);
  }

  static RunView row(ResultSet rs) throws SQLException {
    return new RunView(rs.getObject("id", UUID.class), rs.getString("kind"), rs.getObject("cluster_id", UUID.class),
        rs.getString("replica_id"), rs.getString("state"), rs.getInt("done"), (Integer) rs.getObject("total"),
        rs.getString("current_item"), rs.getBoolean("stop_requested"), rs.getString("error"),
        json(rs.getString("params")), json(rs.getString("result")), instant(rs.getTimestamp("created_at")),
        instant(rs.getTimestamp("updated_at")), instant(rs.getTimestamp("finished_at")));
  }

  private static JsonNode json(String s) throws SQLException {
    try {
      return s == null ? null : JSON.readTree(s);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new SQLException("unreadable JSON in bulk_run", e);
    }
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }
}
