package dev.studio.auth;

import dev.studio.db.Database;
import java.security.MessageDigest;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * The {@code idempotency_key} table, shared by every replica. A request with a key first reserves it
 * (status 0); whoever inserts the row acts, everyone else gets the first response, a mismatch, or
 * "still in progress". Only successful outcomes are remembered: a refused request releases its key,
 * so the client can correct the body and retry with the same key.
 */
public final class IdempotencyStore {
  /** What a reservation found. */
  public sealed interface Outcome {}

  /** This request acts; it must {@link #complete} or {@link #release} the key. */
  public record Acquired() implements Outcome {}

  /** Acted on before: the first response. */
  public record Replay(int status, String body) implements Outcome {}

  /** The key was used with another body. */
  public record Mismatch() implements Outcome {}

  /** The first request with this key is still being acted on (or its replica died while acting). */
  public record InProgress() implements Outcome {}

  private final Database db;
  private final Duration ttl;

  public IdempotencyStore(Database db, Duration ttl) {
    this.db = db;
    this.ttl = ttl;
  }

  public static byte[] fingerprint(String method, String path, byte[] body) {
    return TokenStore.sha256((method + " " + path + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8), body);
  }

  public Outcome reserve(String scope, String key, byte[] fingerprint) throws SQLException {
    return db.inTransaction(c -> {
      Database.update(c, "DELETE FROM idempotency_key WHERE scope = ? AND key = ? AND created_at < now() - make_interval(secs => ?)",
          scope, key, (double) ttl.toSeconds());
      boolean mine = !Database.query(c, """
          INSERT INTO idempotency_key (key, scope, request, response, status) VALUES (?, ?, ?, 'null'::jsonb, 0)
          ON CONFLICT (scope, key) DO NOTHING RETURNING 1""", rs -> 1, key, scope, fingerprint).isEmpty();
      if (mine) return new Acquired();
      List<Outcome> seen = Database.query(c, "SELECT request, status, response::text FROM idempotency_key WHERE scope = ? AND key = ?",
          rs -> !MessageDigest.isEqual(rs.getBytes(1), fingerprint) ? new Mismatch()
              : rs.getInt(2) == 0 ? new InProgress() : new Replay(rs.getInt(2), rs.getString(3)), scope, key);
      // the row expired and went between our insert and our read: treat as in progress, the client retries
      return seen.isEmpty() ? new InProgress() : seen.get(0);
    });
  }

  /** Remembers a successful response ({@code body} is JSON, or null for none). */
  public void complete(String scope, String key, int status, String body) throws SQLException {
    db.update("UPDATE idempotency_key SET status = ?, response = ?::jsonb WHERE scope = ? AND key = ?",
        status, body == null || body.isEmpty() ? "null" : body, scope, key);
  }

  public void release(String scope, String key) throws SQLException {
    db.update("DELETE FROM idempotency_key WHERE scope = ? AND key = ? AND status = 0", scope, key);
  }

  /** Forgets keys older than the TTL; any replica may run it, it is idempotent. */
  public int prune() throws SQLException {
    return db.update("DELETE FROM idempotency_key WHERE created_at < now() - make_interval(secs => ?)", (double) ttl.toSeconds());
  }
}
