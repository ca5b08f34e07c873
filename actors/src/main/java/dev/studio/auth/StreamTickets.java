package dev.studio.auth;

import dev.studio.db.Database;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Short-lived signed tickets for browsers, whose {@code EventSource} cannot send an
 * {@code Authorization} header: {@code base64url(tokenId, expiresAt) . base64url(HMAC-SHA256)}. The
 * key lives in {@code auth_key}, so a ticket issued by one replica opens a stream on any other. A
 * ticket names its token, never contains it; the stream still checks that token on connect and
 * every few seconds after.
 */
public final class StreamTickets {
  public record Ticket(String value, Instant expiresAt) {}

  private static final Base64.Encoder ENC = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DEC = Base64.getUrlDecoder();
  private final Database db;
  private final Duration ttl;
  private final Clock clock = Clock.systemUTC();
  private volatile SecretKeySpec key;

  /** The key is loaded on first use (call from the JDBC dispatcher), created by the first replica ever to ask. */
  public StreamTickets(Database db, Duration ttl) {
    this.db = db;
    this.ttl = ttl;
  }

  private SecretKeySpec key() throws SQLException {
    SecretKeySpec k = key;
    if (k != null) return k;
    byte[] fresh = new byte[32];
    new SecureRandom().nextBytes(fresh);
    byte[] stored = db.inTransaction(c -> {
      Database.update(c, "INSERT INTO auth_key (id, secret) VALUES (1, ?) ON CONFLICT (id) DO NOTHING", fresh);
      return Database.query(c, "SELECT secret FROM auth_key WHERE id = 1", rs -> rs.getBytes(1)).get(0);
    });
    key = k = new SecretKeySpec(stored, "HmacSHA256");
    return k;
  }

  public Ticket issue(Principal p) throws SQLException {
    Instant expires = clock.instant().plus(ttl);
    ByteBuffer payload = ByteBuffer.allocate(24);
    payload.putLong(p.tokenId().getMostSignificantBits()).putLong(p.tokenId().getLeastSignificantBits())
        .putLong(expires.getEpochSecond());
    byte[] body = payload.array();
    return new Ticket(ENC.encodeToString(body) + "." + ENC.encodeToString(sign(body)), Instant.ofEpochSecond(expires.getEpochSecond()));
  }

  /** The token a valid, unexpired ticket names; empty for anything else. */
  public Optional<UUID> verify(String ticket) throws SQLException {
    if (ticket == null || ticket.length() > 128) return Optional.empty();
    int dot = ticket.indexOf('.');
    if (dot < 0) return Optional.empty();
    try {
      byte[] body = DEC.decode(ticket.substring(0, dot));
      byte[] sig = DEC.decode(ticket.substring(dot + 1));
      if (body.length != 24 || !MessageDigest.isEqual(sig, sign(body))) return Optional.empty();
      ByteBuffer b = ByteBuffer.wrap(body);
      UUID token = new UUID(b.getLong(), b.getLong());
      if (clock.instant().getEpochSecond() > b.getLong()) return Optional.empty();
      return Optional.of(token);
    } catch (IllegalArgumentException malformed) {
      return Optional.empty();
    }
  }

  private byte[] sign(byte[] body) throws SQLException {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key());
      return mac.doFinal(body);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
    }
  }
}
