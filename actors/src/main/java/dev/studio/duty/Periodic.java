package dev.studio.duty;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The shape most duties take: run blocking work now and then every {@code interval}, on the given
 * executor, never two at once (a slow broker delays the next run instead of piling runs up). When
 * the work throws, the duty fails and the framework restarts it with backoff.
 */
public final class Periodic {
  private sealed interface Msg {}

  private record Run() implements Msg {}

  private record Ran(Throwable failure) implements Msg {}

  private Periodic() {}

  public static Behavior<?> every(Duration interval, Executor blocking, Callable<?> work) {
    return Behaviors.<Msg>setup(self -> Behaviors.withTimers(timers -> {
      timers.startTimerWithFixedDelay(new Run(), interval);
      self.getSelf().tell(new Run());
      boolean[] busy = {false};
      return Behaviors.receive(Msg.class)
          .onMessage(Run.class, r -> {
            if (busy[0]) return Behaviors.same();
            busy[0] = true;
            self.pipeToSelf(CompletableFuture.supplyAsync(() -> {
              try {
                work.call();
                // never null: a result that reaches a stopped duty goes to dead letters, which cannot log null
                return Boolean.TRUE;
              } catch (Exception e) {
                throw new IllegalStateException(e.getMessage(), e);
              }
            }, blocking), (ok, failure) -> new Ran(failure));
            return Behaviors.same();
          })
          .onMessage(Ran.class, r -> {
            busy[0] = false;
            if (r.failure() != null) throw new IllegalStateException("duty run failed", r.failure());
            return Behaviors.same();
          })
          .build();
    }));
  }
}
