package dev.studio.http;

import dev.studio.metrics.Metrics;
import dev.studio.probe.Readiness;
import dev.studio.replica.ReplicaStatus;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.Route;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.path;

/** {@code /livez}, {@code /readyz} and {@code /metrics}: no authentication, by design. */
final class ProbeRoutes {
  private ProbeRoutes() {}

  static Route create(ReplicaStatus status, Readiness readiness, Metrics metrics) {
    return concat(
        // from memory only: a database outage must never make Kubernetes restart healthy replicas
        path("livez", () -> get(() -> {
          Map<String, Object> body = new LinkedHashMap<>();
          body.put("status", "alive");
          body.put("replica", status.id());
          body.put("state", status.state().sql());
          return complete(Json.ok(body));
        })),
        path("readyz", () -> get(() -> onSuccess(readiness.check(), report -> {
          Map<String, Object> body = new LinkedHashMap<>();
          body.put("ready", report.ready());
          body.put("replica", status.id());
          body.put("safeMode", report.safeMode());
          body.put("checks", report.checks());
          return complete(Json.response(report.ready() ? StatusCodes.OK : StatusCodes.SERVICE_UNAVAILABLE, body));
        }))),
        path("metrics", () -> get(() -> complete(HttpResponse.create()
            .withEntity(HttpEntities.create(ContentTypes.TEXT_PLAIN_UTF8, metrics.scrape()))))));
  }
}
