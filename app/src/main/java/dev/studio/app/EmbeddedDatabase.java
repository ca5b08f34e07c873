package dev.studio.app;

import dev.studio.db.Database;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default database when {@code STUDIO_DB_URL} is unset: a zonky embedded PostgreSQL whose data
 * lives in {@code STUDIO_DATA_DIR/pg} and survives restarts. It serves one replica on one machine;
 * several replicas must share a real PostgreSQL. A second Studio process on the same data dir (a
 * CLI command while the server runs) attaches to the running server instead of starting another.
 */
final class EmbeddedDatabase implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedDatabase.class);
  private static final String DATABASE = "studio";

  private final EmbeddedPostgres owned;
  private final int port;

  private EmbeddedDatabase(EmbeddedPostgres owned, int port) {
    this.owned = owned;
    this.port = port;
  }

  static EmbeddedDatabase open(Path dataDir, int configuredPort) throws IOException, SQLException {
    Path pgData = dataDir.resolve("pg");
    Files.createDirectories(dataDir);
    Optional<Integer> running = runningPort(pgData);
    EmbeddedDatabase db;
    if (running.isPresent()) {
      log.info("using embedded PostgreSQL already running on port {} with data in {}", running.get(), pgData);
      db = new EmbeddedDatabase(null, running.get());
    } else {
      int port = configuredPort > 0 ? configuredPort : freePort();
      EmbeddedPostgres pg = EmbeddedPostgres.builder()
          .setDataDirectory(pgData)
          .setCleanDataDirectory(false)
          .setPort(port)
          .setServerConfig("max_connections", "100")
          .start();
      log.info("using embedded PostgreSQL on 127.0.0.1:{} with data in {} (one replica on one machine; "
          + "set STUDIO_DB_URL to share a real PostgreSQL between replicas)", port, pgData);
      db = new EmbeddedDatabase(pg, port);
    }
    db.ensureDatabase();
    return db;
  }

  Database.Target target() {
    return new Database.Target("jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE, "postgres", "");
  }

  private void ensureDatabase() throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "");
         Statement st = c.createStatement()) {
      var rs = st.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'");
      if (!rs.next()) st.execute("CREATE DATABASE " + DATABASE);
    }
  }

  /** The port of a server already running on this data dir, read from its {@code postmaster.pid}. */
  private static Optional<Integer> runningPort(Path pgData) {
    Path pid = pgData.resolve("postmaster.pid");
    if (!Files.exists(pid)) return Optional.empty();
    try {
      List<String> lines = Files.readAllLines(pid);
      int port = Integer.parseInt(lines.get(3).trim());
      try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "")) {
        return c.isValid(2) ? Optional.of(port) : Optional.empty();
      }
    } catch (IOException | SQLException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() throws IOException {
    if (owned != null) owned.close();
  }
}
