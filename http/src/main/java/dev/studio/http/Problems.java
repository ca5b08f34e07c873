package dev.studio.http;

import java.sql.SQLException;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.ExceptionHandler;
import org.apache.pekko.http.javadsl.server.RejectionHandler;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.handleExceptions;
import static org.apache.pekko.http.javadsl.server.Directives.handleRejections;

/** Every error leaves as {@code application/problem+json} with a status that says whose fault it is. */
final class Problems {
  private static final Logger log = LoggerFactory.getLogger(Problems.class);

  private Problems() {}

  static Route handled(java.util.function.Supplier<Route> inner) {
    return handleExceptions(exceptions(), () -> handleRejections(rejections(), inner));
  }

  /** Pekko's default rejection answers (404, 405, 400, 415 …), re-shaped as problems. */
  private static RejectionHandler rejections() {
    return RejectionHandler.defaultHandler().mapRejectionResponse(response -> {
      if (response.entity().getContentType().equals(Json.PROBLEM)) return response;
      String detail = response.entity() instanceof org.apache.pekko.http.javadsl.model.HttpEntity.Strict strict
          ? strict.getData().utf8String() : null;
      return Json.problem(response.status(), response.status().reason(), detail);
    });
  }

  private static ExceptionHandler exceptions() {
    return ExceptionHandler.newBuilder()
        .match(java.util.concurrent.CompletionException.class, e -> unwrap(e.getCause()))
        .matchAny(Problems::unwrap)
        .build();
  }

  private static Route unwrap(Throwable e) {
    if (e instanceof java.util.concurrent.CompletionException && e.getCause() != null) return unwrap(e.getCause());
    if (e instanceof SQLException || e.getCause() instanceof SQLException) {
      log.warn("database error: {}", e.getMessage());
      return complete(Json.problem(StatusCodes.SERVICE_UNAVAILABLE, "Database unavailable",
          "the database did not answer; retry shortly"));
    }
    if (e instanceof dev.studio.cluster.ClusterSpec.Invalid) {
      return complete(Json.problem(StatusCodes.UNPROCESSABLE_ENTITY, "Invalid cluster", e.getMessage()));
    }
    if (e instanceof dev.studio.cluster.ClusterStore.NameTaken) {
      return complete(Json.problem(StatusCodes.CONFLICT, "Name taken", e.getMessage()));
    }
    if (e instanceof Unprocessable u) {
      return complete(Json.problem(StatusCodes.UNPROCESSABLE_ENTITY, u.title, u.getMessage()));
    }
    if (e instanceof org.apache.pekko.http.scaladsl.model.EntityStreamSizeException) {
      return complete(Json.problem(StatusCodes.PAYLOAD_TOO_LARGE, "Payload too large", e.getMessage()));
    }
    if (e instanceof IllegalArgumentException) {
      return complete(Json.problem(StatusCodes.BAD_REQUEST, "Bad request", e.getMessage()));
    }
    log.error("unexpected error", e);
    return complete(Json.problem(StatusCodes.INTERNAL_SERVER_ERROR, "Internal error", null));
  }
}
