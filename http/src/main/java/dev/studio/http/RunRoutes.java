package dev.studio.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.studio.auth.Role;
import dev.studio.run.RunStore;
import dev.studio.run.RunView;
import dev.studio.run.Runs;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.parameterOptional;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathEndOrSingleSlash;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.post;

/**
 * {@code POST /api/v1/runs} (starts on this replica), {@code GET /api/v1/runs[/{id}]}, and
 * {@code POST /api/v1/runs/{id}/stop} (through any replica: the running one stops before its next item).
 */
final class RunRoutes {
  private RunRoutes() {}

  static Route create(Caller caller, RunStore store, ActorRef<Runs.Command> runs, Scheduler scheduler, Executor jdbc) {
    return pathPrefix("runs", () -> concat(
        pathEndOrSingleSlash(() -> concat(
            get(() -> parameterOptional("limit", limit -> ClusterRoutes.async(jdbc,
                () -> Map.of("runs", store.list(Params.limit(limit, 100, 1000)).stream().map(RunRoutes::view).toList()),
                Json::ok))),
            post(() -> caller.act(Role.OPERATOR, "run.start", null, () -> ClusterRoutes.json(body -> {
              String kind = body.path("kind").asText(null);
              String cluster = body.path("clusterId").asText(null);
              JsonNode params = body.has("params") ? body.get("params") : JsonNodeFactory.instance.objectNode();
              if (kind == null || cluster == null || !params.isObject()) {
                return complete(Json.problem(StatusCodes.UNPROCESSABLE_ENTITY, "Invalid run",
                    "kind (string), clusterId (UUID) and params (object) are required"));
              }
              UUID clusterId = ClusterRoutes.id(cluster);
              return onSuccess(AskPattern.<Runs.Command, Runs.Started>ask(runs,
                  replyTo -> new Runs.Start(kind, clusterId, params, replyTo), Duration.ofSeconds(10), scheduler),
                  started -> {
                    if (started.refusal() != null) {
                      var r = started.refusal();
                      return complete(Json.problem(StatusCodes.get(r.status()), r.title(), r.detail()));
                    }
                    Map<String, Object> out = new LinkedHashMap<>();
                    out.put("id", started.run().id());
                    out.put("state", started.run().state());
                    out.put("replicaId", started.run().replicaId());
                    return complete(Json.response(StatusCodes.CREATED, out));
                  });
            }))))),
        pathPrefix(PathMatchers.segment(), rawId -> concat(
            pathEndOrSingleSlash(() -> get(() -> ClusterRoutes.async(jdbc, () -> store.get(ClusterRoutes.id(rawId)),
                run -> run.map(r -> Json.ok(view(r))).orElseGet(RunRoutes::notFound)))),
            path("stop", () -> post(() -> caller.act(Role.OPERATOR, "run.stop", rawId, () -> ClusterRoutes.async(jdbc,
                () -> store.requestStop(ClusterRoutes.id(rawId)),
                run -> run.map(r -> Json.response(StatusCodes.ACCEPTED, view(r))).orElseGet(RunRoutes::notFound)))))))));
  }

  private static org.apache.pekko.http.javadsl.model.HttpResponse notFound() {
    return Json.problem(StatusCodes.NOT_FOUND, "Not found", "no such run");
  }

  static Map<String, Object> view(RunView r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", r.id());
    m.put("kind", r.kind());
    m.put("clusterId", r.clusterId());
    m.put("replicaId", r.replicaId());
    m.put("state", r.state());
    m.put("done", r.done());
    m.put("total", r.total());
    m.put("currentItem", r.currentItem());
    m.put("stopRequested", r.stopRequested());
    m.put("error", r.error());
    m.put("params", r.params());
    m.put("result", r.result());
    m.put("createdAt", r.createdAt());
    m.put("updatedAt", r.updatedAt());
    m.put("finishedAt", r.finishedAt());
    return m;
  }
}
