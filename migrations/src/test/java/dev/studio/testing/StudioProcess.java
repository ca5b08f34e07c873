package dev.studio.testing;


import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One real {@code studio.jar} process on a loopback port, with its log in {@code target/it-logs}. */
public final class StudioProcess implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  /** Every test replica starts with this admin token (STUDIO_ADMIN_TOKEN) unless a test sets another. */
  public static final String ADMIN_TOKEN = "studio_test-admin-token-0123456789";

  /** The header value tests send with every API request. */
  public static String bearer() {
    return "Bearer " + ADMIN_TOKEN;
  }

  private final String name;
  private final int port;
  private final Path log;
  private final List<String> command;
  private final Map<String, String> env;
  private Process process;

  private StudioProcess(String name, int port, Path log, List<String> command, Map<String, String> env) {
    this.name = name;
    this.port = port;
    this.log = log;
    this.command = command;
    this.env = env;
  }

  public static Builder builder(String name) {
    return new Builder(name);
  }

  public static final class Builder {
    private final String name;
    private final Map<String, String> props = new LinkedHashMap<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private final List<String> args = new ArrayList<>();
    private int port;
    private boolean peakJit;

    private Builder(String name) {
      this.name = name;
      env.put("STUDIO_ADMIN_TOKEN", ADMIN_TOKEN);
    }

    public Builder database(String url, String user, String password) {
      env.put("STUDIO_DB_URL", url);
      env.put("STUDIO_DB_USER", user);
      env.put("STUDIO_DB_PASSWORD", password == null ? "" : password);
      return this;
    }

    public Builder env(String key, String value) {
      env.put(key, value);
      return this;
    }

    /** A {@code -Dstudio.…} style override. */
    public Builder prop(String key, String value) {
      props.put(key, value);
      return this;
    }

    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** Full JIT and a larger heap, for benchmarks (tests start faster with C1 only). */
    public Builder peakJit() {
      this.peakJit = true;
      return this;
    }

    public Builder args(String... more) {
      args.addAll(List.of(more));
      return this;
    }

    public StudioProcess start() throws IOException {
      int p = port > 0 ? port : freePort();
      Path dir = Path.of("target", "it-logs");
      Files.createDirectories(dir);
      Path log = dir.resolve(name + "-" + System.currentTimeMillis() + ".log");
      List<String> cmd = new ArrayList<>(peakJit ? List.of(javaBin(), "-Xmx1g")
          : List.of(javaBin(), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
      props.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
      cmd.add("-jar");
      cmd.add(jar());
      cmd.addAll(args);
      Map<String, String> e = new LinkedHashMap<>(env);
      e.put("STUDIO_HTTP_HOST", "127.0.0.1");
      e.put("STUDIO_HTTP_PORT", String.valueOf(p));
      StudioProcess sp = new StudioProcess(name, p, log, cmd, e);
      sp.launch();
      return sp;
    }
  }

  private void launch() throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().keySet().removeIf(k -> k.startsWith("STUDIO_"));
    pb.environment().putAll(env);
    process = pb.start();
  }

  public static String jar() {
    String jar = System.getProperty("studio.jar", "target/studio.jar");
    if (!Files.exists(Path.of(jar))) throw new IllegalStateException("no runnable jar at " + jar + "; run mvn verify");
    return jar;
  }

  private static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  public String name() {
    return name;
  }

  public int port() {
    return port;
  }

  public long pid() {
    return process.pid();
  }

  public boolean alive() {
    return process.isAlive();
  }

  /** GET on this replica; status and body, or status -1 when it did not answer. */
  public Reply get(String path) {
    return get(path, Duration.ofSeconds(5));
  }

  public Reply get(String path, Duration timeout) {
    try {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .header("Authorization", bearer()).timeout(timeout).GET().build(), HttpResponse.BodyHandlers.ofString());
      return new Reply(r.statusCode(), r.body());
    } catch (IOException e) {
      return new Reply(-1, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Reply(-1, "interrupted");
    }
  }

  public record Reply(int status, String body) {}

  public StudioProcess awaitReady(Duration deadline) {
    Await.until(name + " /readyz 200", deadline, () -> {
      if (!process.isAlive()) throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + log());
      return get("/readyz").status() == 200;
    });
    return this;
  }

  /** Sends a signal by name (TERM, KILL, STOP, CONT). */
  public void signal(String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) throw new IllegalStateException("kill -" + signal + " failed");
  }

  public int awaitExit(Duration deadline) throws InterruptedException {
    if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(name + " did not exit within " + deadline + ":\n" + log());
    }
    return process.exitValue();
  }

  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
