package dev.studio.auth;

import dev.studio.db.BatchWriter;
import dev.studio.db.Database;
import java.sql.Connection;
import java.util.concurrent.CompletableFuture;
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
public final class AuditLog implements AutoCloseable {
  static final long ORDER_LOCK = 0x5354_5544_494f_4155L;

  public record Entry(long id, Instant at, UUID tokenId, String tokenName, String role, String action,
      String target, int status, String replicaId) {}

  private record Pending(Principal who, String action, String target, int status) {}

  private final Database db;
  private final String replicaId;
  private final BatchWriter<Pending, Boolean> writer;

  public AuditLog(Database db, String replicaId) {
    this.db = db;
    this.replicaId = replicaId;
    // group commit: a transaction per entry would make every change queue on ORDER_LOCK
    this.writer = new BatchWriter<>("audit", 10_000, 500, batch -> db.inTransaction(c -> write(c, batch)));
  }

  /** Completes once the entry is committed. */
  public CompletableFuture<Boolean> record(Principal who, String action, String target, int status) {
    return writer.submit(new Pending(who, action, target, status));
  }

  private List<Boolean> write(Connection c, List<Pending> batch) throws SQLException {
    Database.lockForTransaction(c, ORDER_LOCK);
    Database.update(c, """
        INSERT INTO audit_log (token_id, token_name, role, action, target, status, replica_id)
        SELECT t, n, r, a, g, s, ? FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[])
          AS u(t, n, r, a, g, s)""", replicaId,
        c.createArrayOf("uuid", batch.stream().map(p -> p.who().tokenId()).toArray()),
        c.createArrayOf("text", batch.stream().map(p -> p.who().name()).toArray()),
        c.createArrayOf("text", batch.stream().map(p -> p.who().role().wire()).toArray()),
        c.createArrayOf("text", batch.stream().map(Pending::action).toArray()),
        c.createArrayOf("text", batch.stream().map(Pending::target).toArray()),
        c.createArrayOf("int4", batch.stream().map(Pending::status).toArray()));
    return java.util.Collections.nCopies(batch.size(), Boolean.TRUE);
  }

  @Override
  public void close() {
    writer.close();
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
