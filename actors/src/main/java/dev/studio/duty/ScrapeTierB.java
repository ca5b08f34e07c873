package dev.studio.duty;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.studio.owner.FencedWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.pekko.actor.typed.Behavior;

/**
 * Tier B, every {@code scrape.tier-b} (60 s): the queue inventory → {@code cluster_state} tier
 * {@code b}; queues that appeared or vanished since the last inventory (whoever owned the cluster
 * then) become {@code broker_event} rows, announced as an {@code events} batch and a
 * {@code broker.events} frame.
 */
public final class ScrapeTierB implements ClusterDuty {
  @Override
  public String name() {
    return "scrape-tier-b";
  }

  @Override
  public boolean builtIn() {
    return true;
  }

  @Override
  public Behavior<?> create(ClusterContext ctx) {
    return Periodic.every(ctx.tierBInterval(), ctx.blocking(), () -> {
      scrape(ctx);
      return null;
    });
  }

  static void scrape(ClusterContext ctx) {
    try {
      List<JsonNode> queues;
      try {
        queues = ctx.broker().queues(null);
      } catch (java.io.IOException unreachable) {
        return; // tier A records reachability; the inventory keeps its last known value
      }
      ObjectNode state = ScrapeTierA.JSON.createObjectNode();
      state.put("clusterId", ctx.cluster().id().toString());
      state.put("count", queues.size());
      ArrayNode list = state.putArray("queues");
      TreeSet<String> now = new TreeSet<>();
      for (JsonNode q : queues) {
        String vhost = q.path("vhost").asText("/");
        String name = q.path("name").asText();
        now.add(vhost + "\u0000" + name);
        list.addObject().put("vhost", vhost).put("name", name)
            .put("messages", q.path("messages").asLong(0)).put("consumers", q.path("consumers").asLong(0));
      }
      FencedWriter w = ctx.writer();
      TreeSet<String> before = new TreeSet<>();
      w.lastState("b").ifPresent(json -> {
        try {
          for (JsonNode q : ScrapeTierA.JSON.readTree(json).path("queues")) {
            before.add(q.path("vhost").asText("/") + "\u0000" + q.path("name").asText());
          }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
          // an unreadable previous inventory: no differences to report
        }
      });
      List<FencedWriter.EventRow> events = new ArrayList<>();
      boolean baseline = w.lastState("b").isEmpty();
      if (!baseline) {
        for (String k : now) if (!before.contains(k)) events.add(event("queue.created", k));
        for (String k : before) if (!now.contains(k)) events.add(event("queue.deleted", k));
      }
      if (!w.putState("b", state.toString())) return;
      if (!w.appendEvents(events)) return;
      if (!events.isEmpty()) {
        ObjectNode frame = ScrapeTierA.JSON.createObjectNode().put("clusterId", ctx.cluster().id().toString());
        ArrayNode arr = frame.putArray("events");
        for (FencedWriter.EventRow e : events) {
          arr.add(((ObjectNode) ScrapeTierA.JSON.readTree(e.payloadJson())).put("kind", e.kind()));
        }
        ctx.publish("broker.events", frame.toString());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (Exception e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private static FencedWriter.EventRow event(String kind, String key) {
    String[] parts = key.split("\u0000", 2);
    return new FencedWriter.EventRow(kind,
        ScrapeTierA.JSON.createObjectNode().put("vhost", parts[0]).put("name", parts[1]).toString(), Instant.now());
  }
}
