package dev.studio.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared real-PostgreSQL fixture. Register it in a test class:
 *
 * <pre>{@code @RegisterExtension static final TestPostgres pg = TestPostgres.shared();}</pre>
 *
 * <p>The server is {@code STUDIO_TEST_DB_URL} if set; else Testcontainers if a Docker engine
 * answers; else an embedded PostgreSQL (zonky). Every test method gets a fresh, empty database of
 * its own ({@link #url()}). {@link #dedicated()} gives the class a server of its own that it may
 * stop and start (outage tests); that one is always owned by the fixture, never the external one.
 */
public final class TestPostgres implements BeforeEachCallback, AfterAllCallback {
  private static final Logger log = LoggerFactory.getLogger(TestPostgres.class);
  private static PostgresServer sharedServer;

  private final boolean dedicated;
  private PostgresServer server;
  private String database;

  private TestPostgres(boolean dedicated) {
    this.dedicated = dedicated;
  }

  public static TestPostgres shared() {
    return new TestPostgres(false);
  }

  public static TestPostgres dedicated() {
    return new TestPostgres(true);
  }

  private static synchronized PostgresServer sharedServer() {
    if (sharedServer == null) {
      String url = System.getenv("STUDIO_TEST_DB_URL");
      if (url != null && !url.isBlank()) {
        sharedServer = new ExternalServer(url);
      } else if (ContainerServer.dockerAnswers()) {
        sharedServer = ContainerServer.start15();
      } else {
        sharedServer = new EmbeddedServer();
      }
      log.info("test PostgreSQL: {}", sharedServer.describe());
    }
    return sharedServer;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (server == null) {
      server = dedicated ? new EmbeddedServer() : sharedServer();
    }
    if (!server.restartable() || isUp()) {
      newDatabase();
    } else {
      server.start();
      newDatabase();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (dedicated && server != null) server.stop();
  }

  /** A fresh database for the current test (also usable to make extra ones). */
  public String newDatabase() {
    database = "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16).toLowerCase(Locale.ROOT);
    server.createDatabase(database);
    return database;
  }

  public PostgresServer server() {
    return server;
  }

  /** JDBC URL of this test's database, without credentials. */
  public String url() {
    return server.jdbcUrl(database);
  }

  public String user() {
    return server.user();
  }

  public String password() {
    return server.password() == null ? "" : server.password();
  }

  public String database() {
    return database;
  }

  public PGSimpleDataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(url());
    ds.setUser(server.user());
    if (server.password() != null) ds.setPassword(server.password());
    ds.setConnectTimeout(5);
    return ds;
  }

  public Connection connect() throws SQLException {
    return server.connect(database);
  }

  public void stopServer() {
    requireRestartable();
    server.stop();
  }

  public void startServer() {
    requireRestartable();
    server.start();
  }

  private void requireRestartable() {
    if (!server.restartable()) {
      throw new IllegalStateException("this test needs TestPostgres.dedicated() to stop its server");
    }
  }

  private boolean isUp() {
    try (Connection c = server.connect(server.adminDatabase())) {
      return c.isValid(2);
    } catch (SQLException e) {
      return false;
    }
  }
}
