package dev.studio.auth;

import dev.studio.db.Database;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The {@code audit_log} table: who (token) did what (action) to what (target), with what outcome, on
 * which replica. Writers take {@link #ORDER_LOCK} before taking an id, so ids commit in order and
 * {@code after=<id>} paging never skips a late commit.
 */
public final class AuditLog {
  static final long ORDER_LOCK = 0x5354_5544_494f_4155L;

  public record Entry(long id, Instant at, UUID tokenId, String tokenName, String role, String action,
      String target, int status, String replicaId) {}

  private final Database db;
  private final String replicaId;

  public AuditLog(Database db, String replicaId) {
    this.db = db;
    this.replicaId = replicaId;
  }

  public void record(Principal who, String action, String target, int status) throws SQLException {
    db.inTransaction(c -> {
      Database.query(c, "SELECT pg_advisory_xact_lock(?)", rs -> null, ORDER_LOCK);
      return Database.update(c, """
          INSERT INTO audit_log (token_id, token_name, role, action, target, status, replica_id)
          VALUES (?, ?, ?, ?, ?, ?, ?)""", who.tokenId(), who.name(), who.role().wire(), action, target, status, replicaId);
    });
  }

  public List<Entry> after(long after, int limit) throws SQLException {
    return db.query("SELECT * FROM audit_log WHERE id > ? ORDER BY id LIMIT ?", AuditLog::row, after, limit);
  }

  private static Entry row(ResultSet rs) throws SQLException {
    return new Entry(rs.getLong("id"), rs.getTimestamp("at").toInstant(), rs.getObject("token_id", UUID.class),
        rs.getString("token_name"), rs.getString("role"), rs.getString("action"), rs.getString("target"),
        rs.getInt("status"), rs.getString("replica_id"));
  }
}
