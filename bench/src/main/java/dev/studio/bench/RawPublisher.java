package dev.studio.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import dev.studio.testing.StudioProcess;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Publishes frames over one keep-alive HTTP/1.1 connection with hand-written requests: a load
 * generator must cost far less CPU than the server it measures (java.net.http's client saturated a
 * core at ~1,000 requests/s on this machine, which measured the client, not Studio).
 */
final class RawPublisher implements AutoCloseable {
  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;
  private final byte[] head;

  RawPublisher(int port, String topic) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setTcpNoDelay(true);
    out = socket.getOutputStream();
    in = new BufferedInputStream(socket.getInputStream(), 8192);
    head = ("POST /api/v1/streams/" + topic + "/frames HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Authorization: " + StudioProcess.bearer() + "\r\n"
        + "Content-Type: application/json\r\nContent-Length: ").getBytes(StandardCharsets.US_ASCII);
  }

  /** Publishes one frame; returns its id. */
  long publish(String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    out.write(head);
    out.write((body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    String status = line();
    int length = 0;
    for (String h = line(); !h.isEmpty(); h = line()) {
      if (h.regionMatches(true, 0, "content-length:", 0, 15)) length = Integer.parseInt(h.substring(15).trim());
    }
    byte[] reply = in.readNBytes(length);
    if (!status.contains(" 201 ")) throw new IOException("publish answered " + status + ": " + new String(reply, StandardCharsets.UTF_8));
    long id = 0;
    for (byte b : reply) if (b >= '0' && b <= '9') id = id * 10 + (b - '0');
    return id;
  }

  private String line() throws IOException {
    StringBuilder sb = new StringBuilder(64);
    int c;
    while ((c = in.read()) != -1 && c != '\n') if (c != '\r') sb.append((char) c);
    if (c == -1) throw new IOException("connection closed");
    return sb.toString();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
