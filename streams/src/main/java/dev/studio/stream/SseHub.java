package dev.studio.stream;

import dev.studio.bus.BusCodec;
import dev.studio.bus.BusMessage;
import dev.studio.bus.BusSubscriber;
import dev.studio.bus.FramePublisher;
import dev.studio.settings.StudioSettings;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.ClassicActorSystemProvider;
import org.apache.pekko.http.javadsl.model.sse.ServerSentEvent;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.javadsl.Source;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving half of streams: fed by the bus (frames arrive in id order, on the bus's reader
 * thread), it fans each frame out to the SSE clients of its topic on this replica, and serves new
 * clients a replay from {@code stream_frame} so that any replica can resume any client.
 */
public final class SseHub implements BusSubscriber {
  /** The last event of a stream whose token was revoked. */
  public static final String REVOKED_TYPE = "revoked";
  private static final Logger log = LoggerFactory.getLogger(SseHub.class);

  /** Why a new stream was refused. */
  public static final class Draining extends RuntimeException {
    Draining() {
      super("this replica is draining; reconnect", null, false, false);
    }
  }

  private final FramePublisher publisher;
  private final FrameStore store;
  private final StudioSettings.Stream settings;
  private final Executor jdbc;
  private final ClassicActorSystemProvider system;
  private final StreamMetrics metrics;
  private final Set<StreamClient> clients = ConcurrentHashMap.newKeySet();
  private final ConcurrentHashMap<String, Set<StreamClient>> byTopic = new ConcurrentHashMap<>();
  private volatile boolean draining;

  public SseHub(FramePublisher publisher, FrameStore store, StudioSettings.Stream settings, Executor jdbc,
      ClassicActorSystemProvider system, MeterRegistry registry) {
    this.publisher = publisher;
    this.store = store;
    this.settings = settings;
    this.jdbc = jdbc;
    this.system = system;
    this.metrics = new StreamMetrics(registry, clients::size);
  }

  /**
   * Publishes a frame to every client of {@code topic} on every replica; completes with its id. The
   * same call whether one replica runs or twenty: delivery, here included, comes back via the bus.
   */
  public CompletableFuture<Long> publish(String topic, String json) {
    return publisher.publish(topic, BusCodec.canonicalObject(json));
  }

  /**
   * A client's stream of {@code topics}. When {@code revoked} completes (its credentials were
   * withdrawn) the stream sends {@code event: revoked} and closes; it cancels {@code revoked} when it ends.
   *
   * @param lastEventId the last id the client saw; empty for a fresh client
   * @param resyncFirst the client sent a position that could not be read: start with a resync
   */
  public Source<ServerSentEvent, NotUsed> stream(Set<String> topics, Optional<Long> lastEventId, boolean resyncFirst,
      CompletableFuture<Void> revoked) {
    if (draining) throw new Draining();
    int buffer = settings.replayCap() + settings.clientBuffer() + 2;
    Pair<BoundedSourceQueue<ServerSentEvent>, Source<ServerSentEvent, NotUsed>> pair =
        Source.<ServerSentEvent>queue(buffer).preMaterialize(system);
    StreamClient client = new StreamClient(topics, pair.first(), (int) settings.retry().toMillis(),
        settings.clientBuffer(), metrics);
    // subscribe first, then read the database: a frame committed in between is held, not lost
    register(client);
    if (lastEventId.isPresent() || resyncFirst) {
      CompletableFuture.runAsync(() -> catchUp(client, lastEventId, resyncFirst), jdbc)
          .exceptionally(e -> {
            log.warn("replay failed: {}", e.getMessage());
            client.resync("replay failed", 0);
            return null;
          });
    } else {
      client.startLive();
    }
    return pair.second()
        // the drain's reconnect event is the last one: emit it, then complete
        .takeWhile(e -> !e.getEventType().equals(Optional.of(StreamClient.RECONNECT_TYPE)), true)
        .merge(Source.completionStage(revoked.thenApply(x -> ServerSentEvent.create("token revoked", REVOKED_TYPE))), true)
        .keepAlive(settings.heartbeat(), ServerSentEvent::heartbeat)
        .watchTermination((mat, done) -> {
          done.whenComplete((ok, failure) -> {
            revoked.cancel(false);
            unregister(client);
          });
          return mat;
        });
  }

  private void catchUp(StreamClient client, Optional<Long> lastEventId, boolean resyncFirst) {
    try {
      FrameStore.Position pos = store.position();
      if (resyncFirst) {
        client.resync("unreadable last event id", pos.maxId());
        return;
      }
      long last = lastEventId.orElseThrow();
      if (last < pos.prunedThrough()) {
        client.resync("frames after " + last + " were pruned", pos.maxId());
        return;
      }
      List<BusMessage.Frame> missed = store.after(client.topics, last, settings.replayCap() + 1);
      if (missed.size() > settings.replayCap()) {
        client.resync("more than " + settings.replayCap() + " frames missed", pos.maxId());
        return;
      }
      metrics.replays.increment();
      client.replayed(missed);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private void register(StreamClient client) {
    clients.add(client);
    for (String t : client.topics) byTopic.computeIfAbsent(t, k -> ConcurrentHashMap.newKeySet()).add(client);
  }

  private void unregister(StreamClient client) {
    client.terminated();
    clients.remove(client);
    for (String t : client.topics) {
      Set<StreamClient> set = byTopic.get(t);
      if (set != null) set.remove(client);
    }
  }

  @Override
  public void onMessage(BusMessage message) {
    if (!(message instanceof BusMessage.Frames frames)) return;
    for (BusMessage.Frame f : frames.frames()) {
      Set<StreamClient> set = byTopic.get(f.topic());
      if (set == null) continue;
      for (StreamClient c : set) c.onLive(f);
    }
  }

  @Override
  public void onReconnect() {
    for (StreamClient c : clients) c.busReconnected();
  }

  /** Drain: refuse new streams, send {@code event: reconnect} to every client and end its stream. */
  public void reconnectAll() {
    draining = true;
    int n = 0;
    for (StreamClient c : clients) {
      c.reconnect();
      n++;
    }
    log.info("drain: told {} SSE client(s) to reconnect", n);
  }

  public int clientCount() {
    return clients.size();
  }
}
