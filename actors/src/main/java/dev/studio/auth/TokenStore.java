package dev.studio.auth;

import dev.studio.bus.Notify;
import dev.studio.db.Database;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Base64;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The {@code api_token} table. Only a token's SHA-256 hash is stored; the secret is shown once, when it
 * is created. Every lookup goes to the database (no cache), so a revocation through any replica is
 * refused by every replica on its next request; a revocation also signals {@link #SIGNAL_KIND} so
 * open streams are checked at once.
 */
public final class TokenStore {
  public static final String SIGNAL_KIND = "tokens";
  /** Serialises the first start's "no token yet, create the admin token" between replicas. */
  private static final long BOOTSTRAP_LOCK = 0x5354_5544_494f_4154L;
  private static final Pattern NAME = Pattern.compile("[\\p{L}\\p{N} ._@:()-]{1,64}");
  private static final Pattern SECRET = Pattern.compile("[A-Za-z0-9._~+/=-]{16,256}");
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A token as listed: never its secret. */
  public record TokenView(UUID id, String name, String role, Instant createdAt, Instant revokedAt) {}

  /** A new token and its secret, which exists nowhere else. */
  public record Created(TokenView token, String secret) {}

  private final Database db;

  public TokenStore(Database db) {
    this.db = db;
  }

  public static String newSecret() {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    return "studio_" + Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  static byte[] hash(String secret) {
    return sha256(secret.getBytes(StandardCharsets.UTF_8));
  }

  /** SHA-256 over the parts, in order. */
  static byte[] sha256(byte[]... parts) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      for (byte[] p : parts) d.update(p);
      return d.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** A token name: letters, digits, spaces and {@code ._@:()-}, at most 64. */
  public static String validName(String raw) {
    if (raw == null || !NAME.matcher(raw).matches() || raw.isBlank()) {
      throw new IllegalArgumentException("name must be 1-64 letters, digits, spaces or . _ @ : ( ) -");
    }
    return raw.trim();
  }

  public Created create(String name, Role role) throws SQLException {
    return insert(validName(name), role, newSecret());
  }

  private Created insert(String name, Role role, String secret) throws SQLException {
    TokenView view = db.query("INSERT INTO api_token (id, name, hash, role) VALUES (?, ?, ?, ?) RETURNING *",
        TokenStore::row, UUID.randomUUID(), name, hash(secret), role.wire()).get(0);
    return new Created(view, secret);
  }

  public List<TokenView> list(int limit) throws SQLException {
    return db.query("SELECT * FROM api_token ORDER BY created_at, id LIMIT ?", TokenStore::row, limit);
  }

  /** Revokes the token; empty when there is no such token, the token (already revoked or not) otherwise. */
  public Optional<TokenView> revoke(UUID id) throws SQLException {
    return db.inTransaction(c -> {
      List<TokenView> rows = Database.query(c, """
          UPDATE api_token SET revoked_at = coalesce(revoked_at, now()) WHERE id = ? RETURNING *""", TokenStore::row, id);
      if (!rows.isEmpty()) Notify.signal(c, SIGNAL_KIND, id.toString());
      return rows.stream().findFirst();
    });
  }

  /** The unrevoked token with this secret, looked up in the database every time. */
  public Optional<Principal> authenticate(String secret) throws SQLException {
    if (secret == null || !SECRET.matcher(secret).matches()) return Optional.empty();
    return db.queryOne("SELECT id, name, role FROM api_token WHERE hash = ? AND revoked_at IS NULL",
        TokenStore::principal, hash(secret));
  }

  /** The unrevoked token with this id (a stream ticket names its token by id). */
  public Optional<Principal> byId(UUID id) throws SQLException {
    return db.queryOne("SELECT id, name, role FROM api_token WHERE id = ? AND revoked_at IS NULL",
        TokenStore::principal, id);
  }

  /** Which of {@code ids} are still valid: one query however many streams are open. */
  public Set<UUID> stillValid(Collection<UUID> ids) throws SQLException {
    if (ids.isEmpty()) return Set.of();
    return new HashSet<>(db.withConnection(c -> Database.query(c,
        "SELECT id FROM api_token WHERE id = ANY(?) AND revoked_at IS NULL", rs -> rs.getObject(1, UUID.class),
        c.createArrayOf("uuid", ids.toArray()))));
  }

  /**
   * At startup: with {@code adminToken} set, makes sure a token with that secret exists (a revoked one
   * stays revoked); without it, the first start of an installation (no token at all) creates an admin
   * token and returns it so it can be printed once. Replicas starting together create one.
   */
  public Optional<Created> bootstrap(Optional<String> adminToken) throws SQLException {
    return db.inTransaction(c -> {
      Database.lockForTransaction(c, BOOTSTRAP_LOCK);
      if (adminToken.isPresent()) {
        byte[] h = hash(adminToken.get());
        if (Database.query(c, "SELECT 1 FROM api_token WHERE hash = ?", rs -> 1, h).isEmpty()) {
          Database.update(c, "INSERT INTO api_token (id, name, hash, role) VALUES (?, ?, ?, 'admin')",
              UUID.randomUUID(), "admin (STUDIO_ADMIN_TOKEN)", h);
        }
        return Optional.empty();
      }
      if (!Database.query(c, "SELECT 1 FROM api_token LIMIT 1", rs -> 1).isEmpty()) return Optional.empty();
      String secret = newSecret();
      TokenView view = Database.query(c, "INSERT INTO api_token (id, name, hash, role) VALUES (?, ?, ?, 'admin') RETURNING *",
          TokenStore::row, UUID.randomUUID(), "admin (first start)", hash(secret)).get(0);
      return Optional.of(new Created(view, secret));
    });
  }

  private static Principal principal(ResultSet rs) throws SQLException {
    return new Principal(rs.getObject("id", UUID.class), rs.getString("name"), Role.parse(rs.getString("role")));
  }

  private static TokenView row(ResultSet rs) throws SQLException {
    var revoked = rs.getTimestamp("revoked_at");
    return new TokenView(rs.getObject("id", UUID.class), rs.getString("name"), rs.getString("role"),
        rs.getTimestamp("created_at").toInstant(), revoked == null ? null : revoked.toInstant());
  }
}
