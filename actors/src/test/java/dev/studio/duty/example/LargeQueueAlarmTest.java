package dev.studio.duty.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.studio.bus.BusMetrics;
import dev.studio.bus.BusStatus;
import dev.studio.bus.FramePublisher;
import dev.studio.cluster.Cluster;
import dev.studio.cluster.ClusterSpec;
import dev.studio.cluster.ClusterStore;
import dev.studio.db.Database;
import dev.studio.duty.DutyRegistry;
import dev.studio.lease.LeaseStore;
import dev.studio.metrics.ActorMetrics;
import dev.studio.owner.ClusterOwner;
import dev.studio.owner.OwnerDeps;
import dev.studio.testing.Await;
import dev.studio.testing.FakeRabbit;
import dev.studio.testing.MigratedDatabase;
import dev.studio.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The README's example duty, enabled by its class name as the one config line would, run by a real owner. */
@ExtendWith(TestKitJUnit5Extension.class)
class LargeQueueAlarmTest {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @JUnit5TestKit ActorTestKit testKit = new JUnit5TestKitBuilder().build();

  @Test
  void publishesAnAlarmForEachQueueAboveTheClustersThreshold() throws Exception {
    Database db = MigratedDatabase.open(pg);
    try (FakeRabbit broker = new FakeRabbit()) {
      broker.cluster("prod").queue("/", "orders", 5000).queue("/", "audit", 10);
      Path pw = Files.createTempFile("pw", "");
      Files.writeString(pw, FakeRabbit.PASSWORD);
      Cluster cluster = new ClusterStore(db).create(ClusterSpec.from(new ObjectMapper().readTree(
          "{\"name\":\"prod\",\"managementUrl\":\"" + broker.url("prod") + "\",\"username\":\"studio\","
              + "\"passwordRef\":\"file:" + pw + "\",\"settings\":{\"alarmThreshold\":1000}}")));
      LeaseStore leases = new LeaseStore(db, "r1", Duration.ofSeconds(15), Duration.ofSeconds(15));
      long token = db.withConnection(c -> leases.acquire(c, List.of(cluster.id()))).get(cluster.id());

      DutyRegistry duties = DutyRegistry.load(List.of("dev.studio.duty.example.LargeQueueAlarm"), getClass().getClassLoader());
      assertEquals(List.of("large-queue-alarm"), duties.names());
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (FramePublisher frames = new FramePublisher(db, new BusMetrics(registry, new BusStatus()))) {
        OwnerDeps deps = new OwnerDeps(db, frames, HttpClient.newHttpClient(), "r1", ForkJoinPool.commonPool(), ForkJoinPool.commonPool(), registry,
            new ActorMetrics(registry), duties, false, Duration.ofMillis(200), Duration.ofSeconds(60),
            Duration.ofSeconds(2), 2, registry.counter("fenced"));
        testKit.spawn(ClusterOwner.create(cluster, token, deps));
        String alarm = Await.until("an alarm frame", Duration.ofSeconds(10),
            () -> db.queryOne("SELECT data::text FROM stream_frame WHERE topic = 'alarms' ORDER BY id LIMIT 1",
                rs -> rs.getString(1)).orElse(null), java.util.Objects::nonNull);
        assertTrue(alarm.contains("\"queue\":\"orders\"") && alarm.contains("5000"), alarm);
        long quiet = db.queryOne("SELECT count(*) FROM stream_frame WHERE topic = 'alarms' AND data->>'queue' = 'audit'",
            rs -> rs.getLong(1)).orElseThrow();
        assertEquals(0, quiet, "queues under the threshold raise nothing");
        assertTrue(broker.cluster("prod").callers().containsKey("r1"), "called the broker as replica r1");
      }
    } finally {
      db.close();
    }
  }
}
