package dev.studio.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/** A zonky embedded PostgreSQL owned by the fixture: it can be stopped and started on the same port. */
public final class EmbeddedServer implements PostgresServer {
  private final Path dataDir;
  private final int port;
  private EmbeddedPostgres pg;

  public EmbeddedServer() {
    try {
      this.dataDir = Files.createTempDirectory("studio-test-pg");
      try (ServerSocket s = new ServerSocket(0)) {
        this.port = s.getLocalPort();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    start();
  }

  @Override
  public synchronized void start() {
    if (pg != null) return;
    try {
      pg = EmbeddedPostgres.builder()
          .setDataDirectory(dataDir)
          .setCleanDataDirectory(false)
          .setPort(port)
          .setServerConfig("max_connections", "300")
          .setServerConfig("fsync", "off")
          .setServerConfig("synchronous_commit", "off")
          .setServerConfig("full_page_writes", "off")
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("embedded PostgreSQL did not start", e);
    }
  }

  @Override
  public synchronized void stop() {
    if (pg == null) return;
    try {
      pg.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      pg = null;
    }
  }

  @Override
  public String host() {
    return "127.0.0.1";
  }

  @Override
  public int port() {
    return port;
  }

  @Override
  public String user() {
    return "postgres";
  }

  @Override
  public String password() {
    return null;
  }

  @Override
  public boolean restartable() {
    return true;
  }

  @Override
  public String describe() {
    return "embedded PostgreSQL on port " + port + " in " + dataDir;
  }
}
