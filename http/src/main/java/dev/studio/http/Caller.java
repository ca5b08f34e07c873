package dev.studio.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.auth.IdempotencyStore;
import dev.studio.auth.Principal;
import dev.studio.auth.Role;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.Complete;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.extractRequest;
import static org.apache.pekko.http.javadsl.server.Directives.extractRequestEntity;
import static org.apache.pekko.http.javadsl.server.Directives.mapRouteResultFuture;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.optionalHeaderValueByName;
import static org.apache.pekko.http.javadsl.server.Directives.toStrictEntity;

/**
 * An authenticated request's caller: {@link #may} checks its role; {@link #act} also honours an
 * {@code Idempotency-Key} (on POST) and writes the outcome to the audit log.
 */
final class Caller {
  private static final Logger log = LoggerFactory.getLogger(Caller.class);
  private static final Pattern KEY = Pattern.compile("[\\x21-\\x7e]{1,255}");
  private static final Duration READ_BODY = Duration.ofSeconds(10);
  private final Principal who;
  private final Auth.Services s;

  Caller(Principal who, Auth.Services s) {
    this.who = who;
    this.s = s;
  }

  Principal principal() {
    return who;
  }

  /** Reads: 403 below {@code needed}. */
  Route may(Role needed, Supplier<Route> inner) {
    return who.role().covers(needed) ? inner.get() : complete(forbidden(needed));
  }

  /**
   * A change: 403 below {@code needed} (recorded); then, on POST with an {@code Idempotency-Key},
   * the first response for a repeat; then the change itself, recorded with its outcome.
   *
   * @param target what is acted on, or null to take the {@code id} of the created resource
   */
  Route act(Role needed, String action, String target, Supplier<Route> inner) {
    if (!who.role().covers(needed)) {
      return onSuccess(audit(action, target, StatusCodes.FORBIDDEN.intValue()), x -> complete(forbidden(needed)));
    }
    return extractRequest(request -> optionalHeaderValueByName("Idempotency-Key", key -> {
      if (key.isEmpty() || !request.method().equals(HttpMethods.POST)) return audited(action, target, inner);
      if (!KEY.matcher(key.get()).matches()) {
        return complete(Json.problem(StatusCodes.BAD_REQUEST, "Bad Idempotency-Key",
            "Idempotency-Key must be 1-255 visible ASCII characters"));
      }
      return toStrictEntity(READ_BODY, () -> extractRequestEntity(entity -> {
        byte[] fingerprint = IdempotencyStore.fingerprint(request.method().name(), request.getUri().path(),
            ((HttpEntity.Strict) entity).getData().toArray());
        String scope = who.tokenId().toString();
        return onSuccess(sql(() -> s.idempotency().reserve(scope, key.get(), fingerprint)), outcome -> {
          if (outcome instanceof IdempotencyStore.Acquired) return remembered(scope, key.get(), audited(action, target, inner));
          if (outcome instanceof IdempotencyStore.Replay r) return complete(replay(r));
          if (outcome instanceof IdempotencyStore.Mismatch) {
            return complete(Json.problem(StatusCodes.UNPROCESSABLE_ENTITY, "Idempotency-Key reused",
                "this Idempotency-Key was used with a different request"));
          }
          return complete(Json.problem(StatusCodes.CONFLICT, "Request in progress",
                  "the first request with this Idempotency-Key has not finished; retry shortly")
              .addHeader(RawHeader.create("Retry-After", "1")));
        });
      }));
    }));
  }

  /** Keeps a successful response under the key; anything else releases it for a corrected retry. */
  private Route remembered(String scope, String key, Route inner) {
    return mapRouteResultFuture(result -> result.thenCompose(r -> {
      HttpResponse response = r instanceof Complete c ? c.getResponse() : null;
      boolean ok = response != null && response.status().isSuccess() && response.entity() instanceof HttpEntity.Strict;
      CompletableFuture<Void> kept = ok
          ? sql(() -> {
              s.idempotency().complete(scope, key, response.status().intValue(), body(response));
              return null;
            })
          : sql(() -> {
              s.idempotency().release(scope, key);
              return null;
            });
      return kept.handle((x, e) -> {
        if (e != null) log.warn("could not record Idempotency-Key {}: {}", key, e.getMessage());
        return r;
      });
    }), () -> inner);
  }

  /** Runs the change with its errors turned into responses, then records who did what with what outcome. */
  private Route audited(String action, String target, Supplier<Route> inner) {
    return mapRouteResultFuture(result -> result.thenCompose(r -> {
      if (!(r instanceof Complete c)) return CompletableFuture.completedFuture(r);
      HttpResponse response = c.getResponse();
      String what = target != null ? target : createdId(response);
      return audit(action, what, response.status().intValue()).handle((x, e) -> r);
    }), () -> Problems.handled(inner));
  }

  private CompletableFuture<Void> audit(String action, String target, int status) {
    return s.audit().record(who, action, target, status).<Void>thenApply(x -> null).exceptionally(e -> {
      log.error("audit log write failed ({} {} by {}): {}", action, target, who.name(), e.getMessage());
      return null;
    });
  }

  private <T> CompletableFuture<T> sql(Blocking.Sql<T> work) {
    return Blocking.async(s.jdbc(), work);
  }

  private HttpResponse forbidden(Role needed) {
    return Json.problem(StatusCodes.FORBIDDEN, "Forbidden",
        "this needs the " + needed.wire() + " role; token '" + who.name() + "' is " + who.role().wire());
  }

  private static HttpResponse replay(IdempotencyStore.Replay r) {
    HttpResponse out = HttpResponse.create().withStatus(r.status()).addHeader(RawHeader.create("Idempotent-Replayed", "true"));
    return r.body() == null || r.body().equals("null") ? out
        : out.withEntity(ContentTypes.APPLICATION_JSON, r.body());
  }

  /** The response to keep, without a created token's secret: only the token's hash may be stored. */
  private static String body(HttpResponse response) {
    String text = ((HttpEntity.Strict) response.entity()).getData().utf8String();
    if (text.isEmpty()) return text;
    try {
      JsonNode node = Json.MAPPER.readTree(text);
      if (node.isObject() && node.path("token").isTextual()) {
        ((com.fasterxml.jackson.databind.node.ObjectNode) node).putNull("token");
        return node.toString();
      }
      return text;
    } catch (java.io.IOException notJson) {
      return null;
    }
  }

  private static String createdId(HttpResponse response) {
    if (!(response.entity() instanceof HttpEntity.Strict strict) || strict.getData().isEmpty()) return null;
    try {
      JsonNode id = Json.MAPPER.readTree(strict.getData().toArray()).path("id");
      return id.isMissingNode() || id.isNull() ? null : id.asText();
    } catch (java.io.IOException notJson) {
      return null;
    }
  }
}
