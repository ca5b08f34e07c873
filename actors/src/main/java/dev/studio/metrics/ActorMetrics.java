package dev.studio.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Actor metrics from one {@link BehaviorInterceptor} wrapped around every framework and duty
 * behavior: messages handled and handling time per actor kind and message type, live actors per
 * kind, restarts. No Java agent.
 *
 * <p>Wrap <em>inside</em> the supervisor ({@code supervise(metrics.instrument(kind, b))}) so that a
 * restart is seen: the old interceptor gets {@code PreRestart}, the new one starts again.
 */
public final class ActorMetrics {
  private final MeterRegistry registry;
  private final ConcurrentMap<String, AtomicInteger> live = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Timer> timers = new ConcurrentHashMap<>();

  public ActorMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  public <T> Behavior<T> instrument(String kind, Behavior<T> behavior) {
    return Behaviors.intercept(() -> new Interceptor<T>(kind), behavior);
  }

  private AtomicInteger live(String kind) {
    return live.computeIfAbsent(kind, k -> {
      AtomicInteger n = new AtomicInteger();
      Gauge.builder("studio.actors.live", n, AtomicInteger::get).tag("actor", k)
          .description("live actors of this kind").register(registry);
      return n;
    });
  }

  private Timer timer(String kind, Class<?> messageType) {
    String type = messageType.getSimpleName().isEmpty() ? messageType.getName() : messageType.getSimpleName();
    return timers.computeIfAbsent(kind + '\u0000' + type, k -> Timer.builder("studio.actor.messages")
        .tag("actor", kind).tag("message", type)
        .description("messages handled and time spent handling them").register(registry));
  }

  private final class Interceptor<T> extends BehaviorInterceptor<T, T> {
    private final String kind;

    @SuppressWarnings("unchecked")
    Interceptor(String kind) {
      super((Class<T>) (Class<?>) Object.class);
      this.kind = kind;
    }

    @Override
    public Behavior<T> aroundStart(TypedActorContext<T> ctx, PreStartTarget<T> target) {
      live(kind).incrementAndGet();
      return target.start(ctx);
    }

    @Override
    public Behavior<T> aroundReceive(TypedActorContext<T> ctx, T msg, ReceiveTarget<T> target) {
      long start = System.nanoTime();
      try {
        return target.apply(ctx, msg);
      } finally {
        timer(kind, msg.getClass()).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
      }
    }

    @Override
    public Behavior<T> aroundSignal(TypedActorContext<T> ctx, Signal signal, SignalTarget<T> target) {
      if (signal instanceof PreRestart) {
        live(kind).decrementAndGet();
        Counter.builder("studio.actor.restarts").tag("actor", kind)
            .description("restarts by a supervisor").register(registry).increment();
      } else if (signal instanceof PostStop) {
        live(kind).decrementAndGet();
      }
      return target.apply(ctx, signal);
    }

    /** Each actor gets its own interceptor, so nested or repeated wrapping never merges two kinds. */
    @Override
    public boolean isSame(BehaviorInterceptor<Object, Object> other) {
      return other == this;
    }
  }
}
