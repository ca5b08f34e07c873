package dev.studio.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy that can turn into a black hole: connections stay open and accepted, but
 * not a byte is passed on — a database that accepts TCP and never answers.
 */
public final class TcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final String targetHost;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean blackHole;
  private volatile boolean refuse;

  public TcpProxy(String targetHost, int targetPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.server = new ServerSocket();
    server.bind(new InetSocketAddress("127.0.0.1", 0));
    Thread accept = new Thread(this::acceptLoop, "tcp-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  public void blackHole(boolean on) {
    blackHole = on;
  }

  /** Refused: open connections are closed and new ones closed at once (a database that went away). */
  public void refuse(boolean on) throws IOException {
    refuse = on;
    if (on) {
      for (Socket s : sockets) s.close();
      sockets.clear();
    }
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        if (refuse) {
          client.close();
          continue;
        }
        sockets.add(client);
        if (blackHole) {
          pump(client.getInputStream(), OutputStream.nullOutputStream());
          continue;
        }
        Socket upstream = new Socket(targetHost, targetPort);
        sockets.add(upstream);
        pump(client.getInputStream(), upstream.getOutputStream());
        pump(upstream.getInputStream(), client.getOutputStream());
      } catch (IOException e) {
        if (server.isClosed()) return;
      }
    }
  }

  private void pump(InputStream in, OutputStream out) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[16 * 1024];
      try {
        int n;
        while ((n = in.read(buf)) >= 0) {
          if (!blackHole) {
            out.write(buf, 0, n);
            out.flush();
          }
        }
      } catch (IOException ignored) {
        // a side closed: the other side follows when close() runs or its peer goes
      }
    }, "tcp-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : sockets) s.close();
  }
}
