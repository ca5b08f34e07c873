package dev.studio.http;

import dev.studio.cache.SignalCache;
import dev.studio.replica.ReplicaStore;
import dev.studio.replica.ReplicaView;
import java.util.List;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executor;
import org.apache.pekko.http.javadsl.server.Route;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.pathEndOrSingleSlash;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;

/**
 * {@code GET /api/v1/replicas}: every replica the database knows, live or ended. Served from a
 * signal cache: a state change through any replica invalidates it here before the next read.
 */
final class ReplicaRoutes {
  static final int LIMIT = 500;

  private ReplicaRoutes() {}

  static Route create(ReplicaStore store, SignalCache<List<ReplicaView>> cache, Duration goneAfter, Executor jdbc) {
    return pathPrefix("replicas", () -> pathEndOrSingleSlash(() -> get(() -> onSuccess(
        Blocking.async(jdbc, () -> cache.get("all", () -> store.list(goneAfter, LIMIT))),
        replicas -> complete(Json.ok(Map.of("replicas", replicas)))))));
  }
}
