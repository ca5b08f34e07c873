package dev.studio.duty.example;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.duty.ClusterContext;
import dev.studio.duty.ClusterDuty;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The README's worked example of a duty: every tier-A interval, publish an {@code alarms} frame for
 * each queue holding more messages than the cluster's {@code alarmThreshold} setting (default 1000).
 * Enable it with one config line: {@code studio.duties += "dev.studio.duty.example.LargeQueueAlarm"}.
 */
public final class LargeQueueAlarm implements ClusterDuty {
  private enum Tick { INSTANCE }

  @Override
  public String name() {
    return "large-queue-alarm";
  }

  @Override
  public Behavior<?> create(ClusterContext ctx) {
    long threshold = ctx.cluster().settings().path("alarmThreshold").asLong(1000);
    return Behaviors.<Tick>setup(self -> Behaviors.withTimers(timers -> {
      timers.startTimerWithFixedDelay(Tick.INSTANCE, ctx.tierAInterval());
      return Behaviors.receive(Tick.class)
          .onMessage(Tick.class, t -> {
            // blocking I/O off the actor's thread; a failure here fails only this duty, which restarts
            CompletableFuture.runAsync(() -> check(ctx, threshold), ctx.blocking());
            return Behaviors.same();
          })
          .build();
    }));
  }

  private static void check(ClusterContext ctx, long threshold) {
    try {
      for (JsonNode q : ctx.broker().queues(null)) {
        if (q.path("messages").asLong() > threshold) {
          ctx.publish("alarms", "{\"clusterId\":\"" + ctx.cluster().id() + "\",\"queue\":\"" + q.path("name").asText()
              + "\",\"messages\":" + q.path("messages").asLong() + "}");
        }
      }
    } catch (Exception e) {
      // an unreachable broker is tier A's to report; try again next tick
    }
  }
}
