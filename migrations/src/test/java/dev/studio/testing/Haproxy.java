package dev.studio.testing;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real HAProxy (Debian package) in front of replicas on loopback, configured from the project's own
 * {@code deploy/haproxy/haproxy.cfg} with the server lines replaced by the given ports.
 */
public final class Haproxy implements AutoCloseable {
  private final Process process;
  private final int port;
  private final Path log;

  private Haproxy(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  public static Path projectConfig() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      Path cfg = p.resolve("deploy/haproxy/haproxy.cfg");
      if (Files.exists(cfg)) return cfg;
    }
    throw new IllegalStateException("deploy/haproxy/haproxy.cfg not found above " + Path.of("").toAbsolutePath());
  }

  public static Haproxy start(List<Integer> replicaPorts) throws IOException, InterruptedException {
    String template = Files.readString(projectConfig());
    int marker = template.indexOf("    # servers");
    StringBuilder cfg = new StringBuilder(template.substring(0, marker)).append("    # servers (test)\n");
    for (int i = 0; i < replicaPorts.size(); i++) {
      cfg.append("    server studio").append(i + 1).append(" 127.0.0.1:").append(replicaPorts.get(i)).append(" check\n");
    }
    Path dir = Files.createTempDirectory("haproxy");
    Path file = dir.resolve("haproxy.cfg");
    Files.writeString(file, cfg.toString());
    int port = StudioProcess.freePort();
    Path log = dir.resolve("haproxy.log");
    ProcessBuilder pb = new ProcessBuilder("haproxy", "-db", "-f", file.toString()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    pb.environment().put("STUDIO_LB_BIND", "127.0.0.1:" + port);
    Haproxy h = new Haproxy(pb.start(), port, log);
    Await.until("haproxy listening", Duration.ofSeconds(10), () -> {
      if (!h.process.isAlive()) throw new IllegalStateException("haproxy exited: " + Files.readString(log));
      try (Socket s = new Socket("127.0.0.1", port)) {
        return true;
      }
    });
    return h;
  }

  public int port() {
    return port;
  }

  public String log() throws IOException {
    return Files.readString(log);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly();
  }
}
