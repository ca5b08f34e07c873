package dev.studio.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.cluster.Cluster;
import dev.studio.cluster.ClusterSpec;
import dev.studio.cluster.ClusterStore;
import dev.studio.cluster.ClusterViews;
import dev.studio.auth.Role;
import dev.studio.lease.LeaseStore;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.delete;
import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.extractRequestEntity;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.parameterOptional;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathEndOrSingleSlash;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.post;
import static org.apache.pekko.http.javadsl.server.Directives.put;

/**
 * {@code /api/v1/clusters} (create, list, get, replace, delete), {@code /api/v1/clusters/{id}/state},
 * {@code /api/v1/leases} and {@code /api/v1/events}. Credentials are a reference and never returned.
 */
final class ClusterRoutes {
  static final int MAX_LIST = 1000;

  private ClusterRoutes() {}

  static Route create(Caller caller, ClusterStore clusters, ClusterViews views, LeaseStore leases, Executor jdbc) {
    return concat(
        pathPrefix("clusters", () -> concat(
            pathEndOrSingleSlash(() -> concat(
                get(() -> parameterOptional("limit", limit -> async(jdbc,
                    () -> Map.of("clusters", clusters.list(Params.limit(limit, 100, MAX_LIST)).stream()
                        .map(ClusterRoutes::view).toList()), Json::ok))),
                post(() -> caller.act(Role.OPERATOR, "cluster.create", null, () -> json(body -> async(jdbc,
                    () -> clusters.create(ClusterSpec.from(body)), c -> Json.response(StatusCodes.CREATED, view(c)))))))),
            pathPrefix(PathMatchers.segment(), rawId -> concat(
                pathEndOrSingleSlash(() -> concat(
                    get(() -> async(jdbc, () -> clusters.get(id(rawId)), ClusterRoutes::found)),
                    put(() -> caller.act(Role.OPERATOR, "cluster.update", rawId, () -> json(body -> async(jdbc,
                        () -> clusters.update(id(rawId), ClusterSpec.from(body)), ClusterRoutes::found)))),
                    delete(() -> caller.act(Role.OPERATOR, "cluster.delete", rawId, () -> async(jdbc,
                        () -> clusters.delete(id(rawId)),
                        gone -> gone ? HttpResponse.create().withStatus(StatusCodes.NO_CONTENT) : notFound()))))),
                path("state", () -> get(() -> async(jdbc, () -> {
                  UUID id = id(rawId);
                  if (clusters.get(id).isEmpty()) return null;
                  Map<String, Object> out = new LinkedHashMap<>();
                  out.put("clusterId", id);
                  Map<String, Object> tiers = new LinkedHashMap<>();
                  for (var t : views.states(id)) {
                    Map<String, Object> tier = new LinkedHashMap<>();
                    tier.put("state", t.state());
                    tier.put("token", t.token());
                    tier.put("scrapedAt", t.scrapedAt());
                    tiers.put(t.tier(), tier);
                  }
                  out.put("tiers", tiers);
                  var nodes = views.nodes(id);
                  out.put("splitBrain", nodes.stream().anyMatch(ClusterViews.NodeView::splitBrain));
                  out.put("nodes", nodes);
                  return out;
                }, body -> body == null ? notFound() : Json.ok(body)))))))),
        path("leases", () -> get(() -> parameterOptional("limit", limit -> async(jdbc,
            () -> Map.of("leases", leases.list(Params.limit(limit, MAX_LIST, 100_000))), Json::ok)))),
        path("events", () -> get(() -> parameterOptional("cluster", cluster -> parameterOptional("after", after ->
            parameterOptional("limit", limit -> async(jdbc, () -> {
              UUID c = cluster.map(ClusterRoutes::id).orElse(null);
              var events = views.events(c, Params.after(after), Params.limit(limit, 100, MAX_LIST));
              Map<String, Object> out = new LinkedHashMap<>();
              out.put("events", events);
              out.put("next", events.isEmpty() ? null : events.get(events.size() - 1).seq());
              return out;
            }, Json::ok)))))));
  }

  /** A request body that must be a JSON object: 415 for another media type, 400 for malformed JSON. */
  static Route json(Function<JsonNode, Route> inner) {
    return extractRequestEntity(e -> {
      if (!e.getContentType().mediaType().equals(MediaTypes.APPLICATION_JSON)) {
        return complete(Json.problem(StatusCodes.UNSUPPORTED_MEDIA_TYPE, "Unsupported media type", "send application/json"));
      }
      return entity(Unmarshaller.entityToString(), text -> {
        JsonNode body;
        if (text.isBlank()) return complete(Json.problem(StatusCodes.BAD_REQUEST, "Malformed JSON", "the body is empty"));
        try {
          body = Json.MAPPER.readTree(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
          return complete(Json.problem(StatusCodes.BAD_REQUEST, "Malformed JSON", ex.getOriginalMessage()));
        }
        return inner.apply(body);
      });
    });
  }

  /** Runs {@code work} on the JDBC dispatcher and answers with {@code reply}; errors become problems ({@link Problems}). */
  static <T> Route async(Executor jdbc, Blocking.Sql<T> work, Function<T, HttpResponse> reply) {
    return onSuccess(Blocking.async(jdbc, work), r -> complete(reply.apply(r)));
  }

  static UUID id(String raw) {
    try {
      if (raw.length() != 36) throw new IllegalArgumentException();
      return UUID.fromString(raw);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid id: expected a UUID");
    }
  }

  private static HttpResponse found(Optional<Cluster> c) {
    return c.map(x -> Json.ok(view(x))).orElseGet(ClusterRoutes::notFound);
  }

  private static HttpResponse notFound() {
    return Json.problem(StatusCodes.NOT_FOUND, "Not found", "no such cluster");
  }

  /** The API's view: everything but the password reference. */
  static Map<String, Object> view(Cluster c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", c.id());
    m.put("name", c.name());
    m.put("managementUrl", c.managementUrl());
    m.put("username", c.username());
    m.put("settings", c.settings());
    m.put("createdAt", c.createdAt());
    m.put("updatedAt", c.updatedAt());
    return m;
  }
}
