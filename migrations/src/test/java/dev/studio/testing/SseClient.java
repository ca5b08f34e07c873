package dev.studio.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.opentest4j.AssertionFailedError;

/**
 * A minimal SSE client over a plain socket, as a browser's EventSource would read the stream:
 * every event with its {@code id}, {@code event} and {@code data}, in arrival order.
 */
public final class SseClient implements AutoCloseable {
  public record Event(String id, String event, String data, long receivedAtMillis, long receivedAtNanos) {
    public long idAsLong() {
      return Long.parseLong(id);
    }
  }

  private final Socket socket;
  private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final List<Event> all = new ArrayList<>();
  private volatile boolean ended;
  private volatile int status;

  public SseClient(int port, String topics, String lastEventId) throws IOException {
    this(port, topics, lastEventId, StudioProcess.ADMIN_TOKEN);
  }

  /** {@code token}: sent as a bearer token; null sends none (for a query-string ticket in {@code topics}). */
  public SseClient(int port, String topics, String lastEventId, String token) throws IOException {
    socket = new Socket("127.0.0.1", port);
    String req = "GET /api/v1/stream?topics=" + topics + " HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        + (token == null ? "" : "Authorization: Bearer " + token + "\r\n")
        + (lastEventId == null ? "" : "Last-Event-ID: " + lastEventId + "\r\n") + "\r\n";
    OutputStream out = socket.getOutputStream();
    out.write(req.getBytes(StandardCharsets.US_ASCII));
    out.flush();
    Thread reader = new Thread(this::read, "sse-client-" + port);
    reader.setDaemon(true);
    reader.start();
  }

  private void read() {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))) {
      String line = in.readLine();
      status = line == null ? -1 : Integer.parseInt(line.split(" ")[1]);
      // HTTP/1.0: the body is the raw event stream until the server closes (no chunk framing)
      while ((line = in.readLine()) != null && !line.isEmpty()) {
        // headers
      }
      String id = null, event = null;
      StringBuilder data = null;
      while ((line = in.readLine()) != null) {
        if (line.isEmpty()) {
          if (data != null) events.add(new Event(id, event == null ? "message" : event, data.toString(), System.currentTimeMillis(),
              System.nanoTime()));
          id = null;
          event = null;
          data = null;
        } else if (line.startsWith("id:")) {
          id = line.substring(3).trim();
        } else if (line.startsWith("event:")) {
          event = line.substring(6).trim();
        } else if (line.startsWith("data:")) {
          String d = line.substring(5);
          if (d.startsWith(" ")) d = d.substring(1);
          data = data == null ? new StringBuilder(d) : data.append('\n').append(d);
        }
      }
    } catch (IOException | RuntimeException e) {
      // the stream ended or was cut
    } finally {
      ended = true;
    }
  }

  public int status() {
    return status;
  }

  public boolean ended() {
    return ended && events.isEmpty();
  }

  public Event next(Duration deadline) throws InterruptedException {
    Event e = events.poll(deadline.toMillis(), TimeUnit.MILLISECONDS);
    if (e == null) throw new AssertionFailedError("no SSE event within " + deadline + "; had " + all.size());
    all.add(e);
    return e;
  }

  /** Events until one matches, inclusive. */
  public List<Event> until(java.util.function.Predicate<Event> last, Duration deadline) throws InterruptedException {
    long end = System.nanoTime() + deadline.toNanos();
    List<Event> got = new ArrayList<>();
    while (true) {
      long left = Math.max(1, (end - System.nanoTime()) / 1_000_000);
      if (System.nanoTime() > end) throw new AssertionFailedError("timed out; got " + got.size() + " events, last " + (got.isEmpty() ? null : got.get(got.size() - 1)));
      Event e = next(Duration.ofMillis(left));
      got.add(e);
      if (last.test(e)) return got;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
