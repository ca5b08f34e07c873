package dev.studio.http;

import dev.studio.auth.AuditLog;
import dev.studio.auth.IdempotencyStore;
import dev.studio.auth.Principal;
import dev.studio.auth.RateLimits;
import dev.studio.auth.StreamTickets;
import dev.studio.auth.TokenStore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.HttpChallenge;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.model.headers.WWWAuthenticate;
import org.apache.pekko.http.javadsl.server.Route;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.optionalHeaderValueByName;
import static org.apache.pekko.http.javadsl.server.Directives.parameterOptional;

/**
 * Who is calling: a bearer token looked up in the database on every request (no cache, so a
 * revocation through any replica holds on every replica at once), or for the stream endpoint a signed
 * ticket naming one. Then this replica's rate limit for that token. The {@link Caller} it hands on
 * checks roles and records what the caller does.
 */
final class Auth {
  /** What checking callers and recording their actions needs. */
  record Services(TokenStore tokens, StreamTickets tickets, RateLimits limits, IdempotencyStore idempotency,
      AuditLog audit, Executor jdbc) {}

  private static final String SCHEME = "bearer ";
  private final Services s;

  Auth(Services s) {
    this.s = s;
  }

  Services services() {
    return s;
  }

  /** Requires {@code Authorization: Bearer <token>}. */
  Route bearer(Function<Caller, Route> inner) {
    return optionalHeaderValueByName("Authorization", header -> {
      Optional<String> secret = header.filter(h -> h.regionMatches(true, 0, SCHEME, 0, SCHEME.length()))
          .map(h -> h.substring(SCHEME.length()).trim());
      if (secret.isEmpty()) return complete(unauthorized("send Authorization: Bearer <token>"));
      return lookup(() -> s.tokens().authenticate(secret.get()), "the token is unknown or revoked", inner);
    });
  }

  /** The stream endpoint also takes {@code ?ticket=} from {@code POST /api/v1/stream/tickets}. */
  Route bearerOrTicket(Function<Caller, Route> inner) {
    return optionalHeaderValueByName("Authorization", header -> parameterOptional("ticket", ticket -> {
      if (header.isPresent() || ticket.isEmpty()) return bearer(inner);
      return onSuccess(Blocking.async(s.jdbc(), () -> s.tickets().verify(ticket.get())),
          named -> named.map(tokenId -> lookup(() -> s.tokens().byId(tokenId), "the ticket's token is revoked", inner))
              .orElseGet(() -> complete(unauthorized("the ticket is invalid or expired; ask for a new one"))));
    }));
  }

  private Route lookup(Blocking.Sql<Optional<Principal>> find, String refusal, Function<Caller, Route> inner) {
    return onSuccess(Blocking.async(s.jdbc(), find), found -> {
      if (found.isEmpty()) return complete(unauthorized(refusal));
      Duration wait = s.limits().take(found.get().tokenId());
      if (!wait.isZero()) return complete(tooMany(wait));
      return inner.apply(new Caller(found.get(), s));
    });
  }

  static HttpResponse unauthorized(String detail) {
    return Json.problem(StatusCodes.UNAUTHORIZED, "Unauthorized", detail)
        .addHeader(WWWAuthenticate.create(HttpChallenge.create("Bearer", "studio")));
  }

  private static HttpResponse tooMany(Duration wait) {
    long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
    return Json.problem(StatusCodes.TOO_MANY_REQUESTS, "Too many requests",
            "this token's request limit on this replica is used up; retry in " + seconds + " s")
        .addHeader(RawHeader.create("Retry-After", Long.toString(seconds)));
  }
}
