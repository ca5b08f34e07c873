package dev.studio.duty.example;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.duty.ClusterContext;
import dev.studio.duty.ClusterDuty;
import dev.studio.duty.Periodic;
import org.apache.pekko.actor.typed.Behavior;

/**
 * The README's worked example of a duty: every tier-A interval, publish an {@code alarms} frame for
 * each queue holding more messages than the cluster's {@code alarmThreshold} setting (default 1000).
 * Enable it with one config line: {@code studio.duties += "dev.studio.duty.example.LargeQueueAlarm"}.
 */
public final class LargeQueueAlarm implements ClusterDuty {
  @Override
  public String name() {
    return "large-queue-alarm";
  }

  @Override
  public Behavior<?> create(ClusterContext ctx) {
    long threshold = ctx.cluster().settings().path("alarmThreshold").asLong(1000);
    // runs on a blocking thread, one at a time; if it throws, the duty is restarted with backoff
    return Periodic.every(ctx.tierAInterval(), ctx.blocking(), () -> {
      for (JsonNode q : ctx.broker().queues(null)) {
        long messages = q.path("messages").asLong();
        if (messages > threshold) {
          ctx.publish("alarms", "{\"clusterId\":\"" + ctx.cluster().id() + "\",\"queue\":\""
              + q.path("name").asText() + "\",\"messages\":" + messages + "}");
        }
      }
      return null;
    });
  }
}
