package dev.studio.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.studio.testing.Await;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(TestKitJUnit5Extension.class)
class ActorMetricsTest {
  @JUnit5TestKit ActorTestKit testKit = new JUnit5TestKitBuilder().build();

  sealed interface Cmd {}

  record Ping(ActorRef<String> replyTo) implements Cmd {}

  record Boom() implements Cmd {}

  static Behavior<Cmd> echo() {
    return Behaviors.receive(Cmd.class)
        .onMessage(Ping.class, p -> {
          p.replyTo().tell("pong");
          return Behaviors.same();
        })
        .onMessage(Boom.class, b -> {
          throw new IllegalStateException("boom (expected by the test)");
        })
        .build();
  }

  @Test
  void countsMessagesPerTypeLiveActorsAndRestarts() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ActorMetrics metrics = new ActorMetrics(registry);
    ActorRef<Cmd> actor = testKit.spawn(Behaviors.supervise(metrics.instrument("echo", echo()))
        .onFailure(SupervisorStrategy.restart()));
    TestProbe<String> probe = testKit.createTestProbe();

    actor.tell(new Ping(probe.getRef()));
    actor.tell(new Ping(probe.getRef()));
    probe.expectMessage("pong");
    probe.expectMessage("pong");
    actor.tell(new Boom());
    actor.tell(new Ping(probe.getRef()));
    probe.expectMessage("pong"); // restarted and still answering

    // the reply can overtake the recording of its own handling time, so wait for the count
    Await.until("three Pings recorded", Duration.ofSeconds(5),
        () -> registry.get("studio.actor.messages").tags("actor", "echo", "message", "Ping").timer().count() == 3);
    assertEquals(1, registry.get("studio.actor.messages").tags("actor", "echo", "message", "Boom").timer().count());
    assertEquals(1.0, registry.get("studio.actor.restarts").tags("actor", "echo").counter().count());
    assertEquals(1.0, registry.get("studio.actors.live").tags("actor", "echo").gauge().value());

    testKit.stop(actor);
    Await.until("live gauge to drop to zero", Duration.ofSeconds(5),
        () -> registry.get("studio.actors.live").tags("actor", "echo").gauge().value() == 0.0);
  }
}
