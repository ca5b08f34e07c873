package dev.studio.stream;

import dev.studio.bus.BusMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.apache.pekko.http.javadsl.model.sse.ServerSentEvent;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.QueueOfferResult;

/**
 * One SSE stream. Until its replay is done it <em>holds</em> live frames; then it sends the held
 * frames above the last replayed id and goes live — no gap, no duplicate. Its queue is bounded: a
 * client that falls behind is cut off (it reconnects and replays) instead of slowing the others.
 */
final class StreamClient {
  /** Why a client was cut off for being slow; its connection closes and the browser reconnects. */
  static final class TooSlow extends RuntimeException {
    TooSlow() {
      super("SSE client fell behind its buffer", null, false, false);
    }
  }

  final Set<String> topics;
  private final BoundedSourceQueue<ServerSentEvent> queue;
  private final OptionalInt retry;
  private final int holdCap;
  private final StreamMetrics metrics;
  private final List<BusMessage.Frame> held = new ArrayList<>();
  private boolean live;
  private boolean holdOverflowed;
  private boolean closed;
  private long lastSent;

  StreamClient(Set<String> topics, BoundedSourceQueue<ServerSentEvent> queue, int retryMillis, int holdCap,
      StreamMetrics metrics) {
    this.topics = topics;
    this.queue = queue;
    this.retry = OptionalInt.of(retryMillis);
    this.holdCap = holdCap;
    this.metrics = metrics;
  }

  /** A frame from the bus, in id order. */
  synchronized void onLive(BusMessage.Frame f) {
    if (closed) return;
    if (!live) {
      if (held.size() < holdCap) {
        held.add(f);
      } else {
        holdOverflowed = true;
      }
      return;
    }
    send(f);
  }

  /** Replay done: sends the replayed frames, then the held ones above them, then goes live. */
  synchronized void replayed(List<BusMessage.Frame> frames) {
    for (BusMessage.Frame f : frames) send(f);
    goLive();
  }

  /** Too much missed (or unknowable): tells the client to reload, positioned at {@code atId}. */
  synchronized void resync(String reason, long atId) {
    sendResync(reason, atId);
    goLive();
  }

  /** No position to resume from: live frames only. */
  synchronized void startLive() {
    goLive();
  }

  private void goLive() {
    if (closed) return;
    if (holdOverflowed) {
      holdOverflowed = false;
      held.clear();
      // more arrived during replay than could be held: the only honest answer is a resync
      sendResync("too many frames arrived during replay", lastSent);
    }
    for (BusMessage.Frame f : held) send(f);
    held.clear();
    live = true;
  }

  /** The bus reconnected: frames may have been missed while it was down. */
  synchronized void busReconnected() {
    if (live) sendResync("bus reconnected", lastSent);
  }

  /**
   * Drain: tell the client to reconnect elsewhere. The stream itself ends right after emitting this
   * event ({@link SseHub} closes it inclusively), so the event cannot be lost to a race between
   * completing the queue and draining its buffer.
   */
  synchronized void reconnect() {
    if (closed) return;
    offer(RECONNECT);
    closed = true;
  }

  static final String RECONNECT_TYPE = "reconnect";
  private static final ServerSentEvent RECONNECT = ServerSentEvent.create("{}", Optional.of(RECONNECT_TYPE), Optional.empty(),
      OptionalInt.empty());

  synchronized void terminated() {
    closed = true;
  }

  private void send(BusMessage.Frame f) {
    if (closed || f.id() <= lastSent) return; // replay and live overlap: never twice
    if (offer(ServerSentEvent.create(f.data(), Optional.of(f.topic()), Optional.of(Long.toString(f.id())), retry))) {
      lastSent = f.id();
      metrics.delivered.increment();
    }
  }

  private void sendResync(String reason, long atId) {
    metrics.resyncs.increment();
    String data = "{\"reason\":\"" + reason + "\"}";
    Optional<String> id = atId > 0 ? Optional.of(Long.toString(atId)) : Optional.empty();
    if (offer(ServerSentEvent.create(data, Optional.of("resync"), id, retry))) lastSent = Math.max(lastSent, atId);
  }

  private boolean offer(ServerSentEvent e) {
    if (closed) return false;
    QueueOfferResult r = queue.offer(e);
    if (r == QueueOfferResult.enqueued()) return true;
    closed = true;
    if (r == QueueOfferResult.dropped()) {
      metrics.slowDisconnects.increment();
      queue.fail(new TooSlow());
    }
    return false;
  }
}
