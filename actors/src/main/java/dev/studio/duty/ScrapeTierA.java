package dev.studio.duty;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.studio.owner.FencedWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.Behavior;

/**
 * Tier A, every {@code scrape.tier-a} (5 s): overview and nodes → {@code cluster_state} tier {@code a}
 * and {@code cluster_node}, with each node's split-brain verdict from its {@code partitions} (kept in
 * the database, so every replica's guards see it); node down/up become broker events; a
 * {@code cluster.state} frame goes out when something changed.
 */
public final class ScrapeTierA implements ClusterDuty {
  static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public String name() {
    return "scrape-tier-a";
  }

  @Override
  public boolean builtIn() {
    return true;
  }

  @Override
  public Behavior<?> create(ClusterContext ctx) {
    // node states and the last summary live as long as this owner: a new owner starts a new baseline
    Map<String, Boolean> running = new HashMap<>();
    String[] last = {null};
    return Periodic.every(ctx.tierAInterval(), ctx.blocking(), () -> {
      String summary = scrape(ctx, running, last[0]);
      if (summary != null) last[0] = summary;
      return summary;
    });
  }

  /** One scrape; returns the state summary written (null when fenced out). */
  static String scrape(ClusterContext ctx, Map<String, Boolean> running, String previous) {
    try {
      ObjectNode state = JSON.createObjectNode();
      state.put("clusterId", ctx.cluster().id().toString());
      List<FencedWriter.NodeRow> rows = new ArrayList<>();
      List<FencedWriter.EventRow> events = new ArrayList<>();
      try {
        JsonNode overview = ctx.broker().overview();
        JsonNode nodes = ctx.broker().nodes();
        state.put("reachable", true);
        state.put("clusterName", overview.path("cluster_name").asText(""));
        state.put("rabbitmqVersion", overview.path("rabbitmq_version").asText(""));
        state.set("objectTotals", overview.path("object_totals"));
        state.set("queueTotals", overview.path("queue_totals"));
        ArrayNode nodeList = state.putArray("nodes");
        boolean splitBrain = false;
        for (JsonNode n : nodes) {
          String name = n.path("name").asText();
          boolean up = n.path("running").asBoolean(false);
          JsonNode partitions = n.path("partitions");
          boolean partitioned = partitions.isArray() && partitions.size() > 0;
          splitBrain |= partitioned;
          ObjectNode status = JSON.createObjectNode();
          status.put("running", up);
          status.set("partitions", partitions.isArray() ? partitions : JSON.createArrayNode());
          nodeList.add(status.deepCopy().put("name", name));
          rows.add(new FencedWriter.NodeRow(name, status.toString(), partitioned,
              partitioned ? "partitioned from " + partitions : "ok"));
          Boolean before = running.put(name, up);
          if (before != null && before != up) {
            events.add(new FencedWriter.EventRow(up ? "node.up" : "node.down",
                JSON.createObjectNode().put("node", name).toString(), Instant.now()));
          }
        }
        state.put("splitBrain", splitBrain);
      } catch (java.io.IOException e) {
        // an unreachable broker is a state to record, not a duty failure
        state.put("reachable", false);
        state.put("error", e.getMessage());
      }
      if (ctx.broker().isClosed()) return null; // the owner stopped meanwhile: nothing to record
      String summary = state.toString();
      FencedWriter w = ctx.writer();
      if (!w.putState("a", summary)) return null;
      if (!rows.isEmpty() && !w.putNodes(rows)) return null;
      if (!w.appendEvents(events)) return null;
      if (!events.isEmpty()) {
        ObjectNode frame = JSON.createObjectNode().put("clusterId", ctx.cluster().id().toString());
        ArrayNode list = frame.putArray("events");
        for (FencedWriter.EventRow e : events) list.add(((ObjectNode) JSON.readTree(e.payloadJson())).put("kind", e.kind()));
        ctx.publish("broker.events", frame.toString());
      }
      if (!summary.equals(previous)) ctx.publish("cluster.state", summary);
      return summary;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (Exception e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
