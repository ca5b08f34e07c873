package dev.studio.http;

import dev.studio.replica.ReplicaStore;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.http.javadsl.server.Route;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.pathEndOrSingleSlash;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;

/** {@code GET /api/v1/replicas}: every replica the database knows, live or ended. */
final class ReplicaRoutes {
  static final int LIMIT = 500;

  private ReplicaRoutes() {}

  static Route create(ReplicaStore store, Duration goneAfter, Executor jdbc) {
    return pathPrefix("replicas", () -> pathEndOrSingleSlash(() -> get(() -> onSuccess(
        CompletableFuture.supplyAsync(() -> Blocking.sql(() -> store.list(goneAfter, LIMIT)), jdbc),
        replicas -> complete(Json.ok(Map.of("replicas", replicas)))))));
  }
}
