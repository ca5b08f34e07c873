package dev.studio.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An SSE client that behaves like a browser's EventSource: when its stream ends (a {@code reconnect}
 * on drain, or a closed connection) it connects again with the last id it saw.
 */
public final class BrowserClient implements AutoCloseable {
  private final int port;
  private final String topics;
  private final List<SseClient.Event> frames = new CopyOnWriteArrayList<>();
  private final List<String> oddities = new CopyOnWriteArrayList<>();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile String lastId;
  private volatile int connections;
  private volatile boolean resyncByReplay;

  public BrowserClient(int port, String topics, String lastId) {
    this.port = port;
    this.topics = topics;
    this.lastId = lastId;
    this.thread = new Thread(this::loop, "browser-" + topics);
    thread.setDaemon(true);
    thread.start();
  }

  private void loop() {
    while (running) {
      try (SseClient c = new SseClient(port, topics, lastId)) {
        connections++;
        while (running) {
          SseClient.Event e;
          try {
            e = c.next(Duration.ofMillis(300));
          } catch (AssertionError quiet) {
            if (c.ended()) break; // closed: reconnect with the last id, as EventSource does
            continue;
          }
          if ("reconnect".equals(e.event())) break;
          if ("resync".equals(e.event())) {
            oddities.add("resync: " + e.data());
            // the bus of that replica reconnected: catch up by replay from our own position
            if (resyncByReplay) break;
          }
          if (e.id() != null) lastId = e.id();
          if (!"resync".equals(e.event())) frames.add(e);
        }
      } catch (Exception e) {
        oddities.add("connect failed: " + e);
        try {
          Thread.sleep(200); // EventSource's retry delay
        } catch (InterruptedException ie) {
          return;
        }
      }
    }
  }

  /** On {@code resync}, reconnect with the last id (a client that can replay instead of reloading). */
  public BrowserClient replayOnResync() {
    resyncByReplay = true;
    return this;
  }

  public List<SseClient.Event> frames() {
    return new ArrayList<>(frames);
  }

  /** Resyncs and failed connects: a rolling restart should show none of them. */
  public List<String> oddities() {
    return new ArrayList<>(oddities);
  }

  public int connections() {
    return connections;
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join(5_000);
  }
}
