package dev.studio.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.studio.cache.SignalCache;
import dev.studio.db.Database;
import dev.studio.replica.ReplicaState;
import dev.studio.replica.ReplicaStore;
import dev.studio.settings.StudioSettings;
import dev.studio.testing.Await;
import dev.studio.testing.MigratedDatabase;
import dev.studio.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

@ExtendWith(TestKitJUnit5Extension.class)
class BusTest {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @JUnit5TestKit ActorTestKit testKit = new JUnit5TestKitBuilder().build();

  static final StudioSettings.Bus SETTINGS = new StudioSettings.Bus(Optional.empty(), Duration.ofSeconds(10),
      Duration.ofMillis(50), Duration.ofMillis(500), Duration.ofMillis(200), Duration.ofMillis(1500), Duration.ofHours(1));

  /** Records what the bus hands on. */
  static final class Recorder implements BusSubscriber {
    final List<BusMessage> messages = new CopyOnWriteArrayList<>();
    final AtomicInteger reconnects = new AtomicInteger();

    @Override
    public void onMessage(BusMessage message) {
      messages.add(message);
    }

    @Override
    public void onReconnect() {
      reconnects.incrementAndGet();
    }

    List<BusMessage.Frame> frames() {
      List<BusMessage.Frame> out = new ArrayList<>();
      for (BusMessage m : messages) if (m instanceof BusMessage.Frames f) out.addAll(f.frames());
      return out;
    }
  }

  private Database db;
  private BusStatus status;
  private BusMetrics metrics;
  private SimpleMeterRegistry registry;
  private Recorder recorder;
  private Bus.Subscribers subscribers;

  @BeforeEach
  void start() {
    db = MigratedDatabase.open(pg);
    registry = new SimpleMeterRegistry();
    status = new BusStatus();
    metrics = new BusMetrics(registry, status);
    recorder = new Recorder();
    subscribers = new Bus.Subscribers();
    subscribers.add(recorder);
    testKit.spawn(Bus.create(db, "r-" + System.nanoTime(), SETTINGS, status, metrics, subscribers));
    Await.until("bus connected", Duration.ofSeconds(10), status::connected);
  }

  @AfterEach
  void stop() {
    db.close();
  }

  @Test
  void publishedFramesArriveInIdOrderAndWholeEvenWhenLarge() throws Exception {
    try (FramePublisher publisher = new FramePublisher(db, metrics)) {
      List<CompletableFuture<Long>> ids = new ArrayList<>();
      String big = "{\"big\":\"" + "z".repeat(20_000) + "\"}";
      for (int i = 0; i < 300; i++) ids.add(publisher.publish("t", i == 150 ? big : "{\"n\":" + i + "}"));
      List<Long> expected = new ArrayList<>();
      for (var f : ids) expected.add(f.get(10, TimeUnit.SECONDS));
      Await.until("all frames delivered", Duration.ofSeconds(10), () -> recorder.frames().size() == 300);
      List<BusMessage.Frame> got = recorder.frames();
      assertEquals(expected, got.stream().map(BusMessage.Frame::id).toList(), "id order");
      assertEquals(big, got.get(150).data(), "the 20 kB frame arrives whole");
      assertEquals("{\"n\":7}", got.get(7).data());
      double perNotify = registry.get("studio.bus.frames.per.notify").summary().mean();
      assertTrue(perNotify > 1.0, "frames are batched into notifications: " + perNotify);
    }
  }

  @Test
  void thePinnedDriverAcceptsThePushReadTweak() throws Exception {
    try (var c = pg.connect()) {
      assertTrue(PushReads.enable(c), "pgjdbc's PGStream internals changed: revisit PushReads");
    }
  }

  @Test
  void malformedPayloadsAreCountedAndTheBusCarriesOn() throws Exception {
    db.withConnection(c -> Database.query(c, "SELECT pg_notify('studio', 'not json'), pg_notify('studio', '{\"t\":\"x\"}')", rs -> 1));
    db.inTransaction(c -> {
      Notify.signal(c, "k", "v");
      return null;
    });
    Await.until("the signal after the garbage", Duration.ofSeconds(5),
        () -> recorder.messages.contains(new BusMessage.Signal("k", "v")));
    assertEquals(2.0, registry.get("studio.bus.malformed").counter().count());
  }

  @Test
  void notificationsGoOutOnlyOnCommit() throws Exception {
    try {
      db.inTransaction(c -> {
        Notify.signal(c, "rolled", "back");
        throw new java.sql.SQLException("abort on purpose");
      });
    } catch (java.sql.SQLException expected) {
      // rolled back
    }
    db.inTransaction(c -> {
      Notify.signal(c, "committed", "1");
      return null;
    });
    Await.until("the committed signal", Duration.ofSeconds(5),
        () -> recorder.messages.contains(new BusMessage.Signal("committed", "1")));
    assertTrue(recorder.messages.stream().noneMatch(m -> m.equals(new BusMessage.Signal("rolled", "back"))));
  }

  @Test
  void terminatedListenConnectionReconnectsAndClearsCaches() throws Exception {
    SignalCache<String> cache = new SignalCache<>("things", Duration.ofHours(1));
    subscribers.add(cache);
    AtomicInteger loads = new AtomicInteger();
    assertEquals("v1", cache.get("k", () -> "v" + loads.incrementAndGet()));
    assertEquals("v1", cache.get("k", () -> "v" + loads.incrementAndGet()), "cached");
    int before = recorder.reconnects.get();

    int killed = db.queryOne("SELECT count(pg_terminate_backend(pid))::int FROM pg_stat_activity "
        + "WHERE application_name = 'studio-bus' AND datname = current_database()", rs -> rs.getInt(1)).orElse(0);
    assertEquals(1, killed, "exactly one LISTEN connection");
    Await.until("bus reconnected", Duration.ofSeconds(10), () -> recorder.reconnects.get() > before && status.connected());
    assertEquals("v2", cache.get("k", () -> "v" + loads.incrementAndGet()), "cache cleared on reconnect");

    db.inTransaction(c -> {
      Notify.signal(c, "after", "reconnect");
      return null;
    });
    Await.until("messages flow again", Duration.ofSeconds(5),
        () -> recorder.messages.contains(new BusMessage.Signal("after", "reconnect")));
  }

  @Test
  void aStateChangeSignalsEveryReplicasCache() throws Exception {
    SignalCache<String> cache = new SignalCache<>(ReplicaStore.CACHE_KIND, Duration.ofHours(1));
    subscribers.add(cache);
    AtomicInteger loads = new AtomicInteger();
    cache.get("all", () -> "v" + loads.incrementAndGet());
    ReplicaStore store = new ReplicaStore(db);
    store.register("r1", "h", "0.1.0", false);
    Await.until("the registration's signal to invalidate the cache", Duration.ofSeconds(5),
        () -> cache.get("all", () -> "v" + loads.incrementAndGet()).equals("v2"));
    store.setState("r1", ReplicaState.READY);
    Await.until("the state change's signal too", Duration.ofSeconds(5),
        () -> cache.get("all", () -> "v" + loads.incrementAndGet()).equals("v3"));
  }

  @Test
  void coalescingPublisherSendsRepeatedSignalsOnce() throws Exception {
    try (SignalPublisher signals = new SignalPublisher(db, metrics)) {
      synchronized (signals) { // hold the flusher back while the burst queues up
        for (int i = 0; i < 50; i++) signals.signal("burst", "same");
        signals.signal("burst", "other");
      }
      Await.until("both signals", Duration.ofSeconds(5), () -> recorder.messages.contains(new BusMessage.Signal("burst", "other"))
          && recorder.messages.contains(new BusMessage.Signal("burst", "same")));
      long same = recorder.messages.stream().filter(m -> m.equals(new BusMessage.Signal("burst", "same"))).count();
      assertEquals(1, same, "fifty identical signals, one notification");
    }
  }

  @Test
  void silentConnectionIsDetectedBySelfPingAndReplaced() throws Exception {
    try (var proxy = new dev.studio.testing.TcpProxy(pg.server().host(), pg.server().port())) {
      var viaProxy = new StudioSettings.Bus(Optional.of("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + pg.database()),
          SETTINGS.downUnreadyAfter(), SETTINGS.reconnectMinBackoff(), SETTINGS.reconnectMaxBackoff(),
          SETTINGS.pingInterval(), SETTINGS.pingTimeout(), SETTINGS.cacheTtl());
      BusStatus silentStatus = new BusStatus();
      Recorder silent = new Recorder();
      Bus.Subscribers subs = new Bus.Subscribers();
      subs.add(silent);
      testKit.spawn(Bus.create(db, "silent-" + System.nanoTime(), viaProxy, silentStatus,
          new BusMetrics(new SimpleMeterRegistry(), silentStatus), subs));
      Await.until("bus via proxy connected", Duration.ofSeconds(10), silentStatus::connected);
      int connects = silent.reconnects.get();

      // the socket stays open but nothing comes back: no error surfaces, only the missing pings tell
      proxy.blackHole(true);
      Await.until("silent connection declared down", Duration.ofSeconds(5), () -> !silentStatus.connected());
      proxy.blackHole(false);
      Await.until("a new LISTEN connection", Duration.ofSeconds(20),
          () -> silentStatus.connected() && silent.reconnects.get() > connects);
    }
  }
}
