package dev.studio.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.auth.Role;
import dev.studio.auth.TokenStore;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.delete;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.parameterOptional;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathEndOrSingleSlash;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.post;

/**
 * {@code /api/v1/tokens} (admin: create, list, revoke), {@code POST /api/v1/stream/tickets} (any
 * role: a signed ticket for {@code EventSource}) and {@code GET /api/v1/audit} (admin).
 */
final class TokenRoutes {
  static final int MAX_LIST = 1000;

  private TokenRoutes() {}

  static Route create(Caller caller, Auth.Services s) {
    Executor jdbc = s.jdbc();
    return concat(
        pathPrefix("tokens", () -> concat(
            pathEndOrSingleSlash(() -> concat(
                get(() -> caller.may(Role.ADMIN, () -> parameterOptional("limit", limit -> ClusterRoutes.async(jdbc,
                    () -> Map.of("tokens", s.tokens().list(Params.limit(limit, 100, MAX_LIST))), Json::ok)))),
                post(() -> caller.act(Role.ADMIN, "token.create", null, () -> ClusterRoutes.json(body -> {
                  String name;
                  Role role;
                  try {
                    name = TokenStore.validName(text(body, "name"));
                    role = Role.parse(text(body, "role"));
                  } catch (IllegalArgumentException e) {
                    throw new Unprocessable("Invalid token", e.getMessage());
                  }
                  return ClusterRoutes.async(jdbc, () -> s.tokens().create(name, role), created -> {
                    Map<String, Object> out = new LinkedHashMap<>();
                    out.put("id", created.token().id());
                    out.put("name", created.token().name());
                    out.put("role", created.token().role());
                    out.put("createdAt", created.token().createdAt());
                    out.put("token", created.secret());
                    return Json.response(StatusCodes.CREATED, out);
                  });
                }))))),
            path(PathMatchers.segment(), rawId -> delete(() -> caller.act(Role.ADMIN, "token.revoke", rawId,
                () -> ClusterRoutes.async(jdbc, () -> s.tokens().revoke(ClusterRoutes.id(rawId)),
                    t -> t.isPresent() ? HttpResponse.create().withStatus(StatusCodes.NO_CONTENT)
                        : Json.problem(StatusCodes.NOT_FOUND, "Not found", "no such token"))))))),
        path(PathMatchers.segment("stream").slash("tickets"), () -> post(() -> ClusterRoutes.async(jdbc,
            () -> s.tickets().issue(caller.principal()),
            ticket -> Json.response(StatusCodes.CREATED, Map.of("ticket", ticket.value(), "expiresAt", ticket.expiresAt()))))),
        path("audit", () -> get(() -> caller.may(Role.ADMIN, () -> parameterOptional("after", after ->
            parameterOptional("limit", limit -> ClusterRoutes.async(jdbc, () -> {
              var entries = s.audit().after(Params.after(after), Params.limit(limit, 100, MAX_LIST));
              Map<String, Object> out = new LinkedHashMap<>();
              out.put("entries", entries);
              out.put("next", entries.isEmpty() ? null : entries.get(entries.size() - 1).id());
              return out;
            }, Json::ok)))))));
  }

  /** A required string field: 422 when missing or not a string. */
  private static String text(JsonNode body, String field) {
    JsonNode v = body.path(field);
    if (!body.isObject() || !v.isTextual()) throw new Unprocessable("Invalid token", field + " (string) is required");
    return v.asText();
  }
}
