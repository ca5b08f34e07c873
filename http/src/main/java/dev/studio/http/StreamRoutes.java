package dev.studio.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.auth.Role;
import dev.studio.auth.TokenWatch;
import dev.studio.stream.FrameStore;
import dev.studio.stream.SseHub;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.http.javadsl.marshalling.sse.EventStreamMarshalling;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.completeOK;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.extractRequestEntity;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.optionalHeaderValueByName;
import static org.apache.pekko.http.javadsl.server.Directives.parameterOptional;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathEndOrSingleSlash;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.post;

/**
 * {@code GET /api/v1/stream?topics=a,b} (SSE), {@code GET /api/v1/streams/{topic}/frames?after=&limit=}
 * (history) and {@code POST /api/v1/streams/{topic}/frames} (publish an announcement).
 */
final class StreamRoutes {
  static final int MAX_HISTORY = 1000;

  private StreamRoutes() {}

  /** The SSE endpoint; it ends with {@code event: revoked} when the caller's token is revoked. */
  static Route stream(Caller caller, SseHub hub, TokenWatch watch) {
    return get(() -> parameterOptional("topics", topics ->
        parameterOptional("lastEventId", queryId -> optionalHeaderValueByName("Last-Event-ID", headerId -> {
          var wanted = Params.topics(topics);
          Optional<String> raw = headerId.isPresent() ? headerId : queryId;
          Optional<Long> last = Params.id(raw);
          boolean unreadable = last == null;
          CompletableFuture<Void> revoked = watch.watch(caller.principal().tokenId());
          try {
            return completeOK(hub.stream(wanted, unreadable ? Optional.empty() : last, unreadable, revoked),
                EventStreamMarshalling.toEventStream());
          } catch (SseHub.Draining e) {
            revoked.cancel(false);
            return complete(Json.problem(StatusCodes.SERVICE_UNAVAILABLE, "Draining", e.getMessage()));
          }
        }))));
  }

  static Route create(Caller caller, SseHub hub, FrameStore store, Executor jdbc) {
    return pathPrefix("streams", () -> pathPrefix(PathMatchers.segment(), topic -> path("frames", () -> concat(
        get(() -> parameterOptional("after", after -> parameterOptional("limit", limit -> {
          String t = Params.topic(topic);
          long from = Params.after(after);
          int n = Params.limit(limit, 100, MAX_HISTORY);
          return onSuccess(Blocking.async(jdbc, () -> store.history(t, from, n)),
              frames -> complete(Json.ok(history(frames))));
        }))),
        post(() -> {
          String t = Params.topic(topic);
          return caller.act(Role.ADMIN, "announcement.publish", t, () -> extractRequestEntity(requestEntity -> {
            if (!requestEntity.getContentType().mediaType().equals(MediaTypes.APPLICATION_JSON)) {
              return complete(Json.problem(StatusCodes.UNSUPPORTED_MEDIA_TYPE, "Unsupported media type",
                  "send the frame's data as application/json"));
            }
            return entity(Unmarshaller.entityToString(), body -> onSuccess(hub.publish(t, body),
                id -> complete(Json.response(StatusCodes.CREATED, Map.of("id", id)))));
          }));
        })))));
  }

  private static Map<String, Object> history(List<FrameStore.StoredFrame> frames) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (FrameStore.StoredFrame f : frames) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", f.id());
      m.put("topic", f.topic());
      m.put("data", parse(f.data()));
      m.put("createdAt", f.createdAt());
      out.add(m);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("frames", out);
    body.put("next", frames.isEmpty() ? null : frames.get(frames.size() - 1).id());
    return body;
  }

  private static JsonNode parse(String json) {
    try {
      return Json.MAPPER.readTree(json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("stored frame is not JSON", e);
    }
  }
}
