package dev.studio.testing;

import java.net.URI;

/**
 * The server named by {@code STUDIO_TEST_DB_URL} (for example
 * {@code jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres&password=secret}). Tests create
 * their own databases on it; it is not theirs to stop.
 */
final class ExternalServer implements PostgresServer {
  private final String host;
  private final int port;
  private final String database;
  private final String user;
  private final String password;

  ExternalServer(String jdbcUrl) {
    URI uri = URI.create(jdbcUrl.replaceFirst("^jdbc:", ""));
    this.host = uri.getHost();
    this.port = uri.getPort() > 0 ? uri.getPort() : 5432;
    String path = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
    this.database = path.isEmpty() ? "postgres" : path;
    String u = System.getenv().getOrDefault("STUDIO_TEST_DB_USER", "postgres");
    String p = System.getenv("STUDIO_TEST_DB_PASSWORD");
    if (uri.getQuery() != null) {
      for (String kv : uri.getQuery().split("&")) {
        String[] parts = kv.split("=", 2);
        if (parts.length == 2 && parts[0].equals("user")) u = parts[1];
        if (parts.length == 2 && parts[0].equals("password")) p = parts[1];
      }
    }
    this.user = u;
    this.password = p;
  }

  @Override
  public String host() {
    return host;
  }

  @Override
  public int port() {
    return port;
  }

  @Override
  public String user() {
    return user;
  }

  @Override
  public String password() {
    return password;
  }

  @Override
  public String adminDatabase() {
    return database;
  }

  @Override
  public boolean restartable() {
    return false;
  }

  @Override
  public void stop() {
    throw new UnsupportedOperationException("STUDIO_TEST_DB_URL's server is not the fixture's to stop");
  }

  @Override
  public void start() {
    throw new UnsupportedOperationException("STUDIO_TEST_DB_URL's server is not the fixture's to start");
  }

  @Override
  public String describe() {
    return "STUDIO_TEST_DB_URL server " + host + ":" + port;
  }
}
