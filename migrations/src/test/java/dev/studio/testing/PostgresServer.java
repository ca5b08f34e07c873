package dev.studio.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/** A real PostgreSQL server the tests create their databases on. */
public interface PostgresServer {

  String host();

  int port();

  String user();

  String password();

  /** Whether {@link #stop()} and {@link #start()} work (only for servers this fixture owns). */
  boolean restartable();

  /** Stops the server, keeping its data; connections die. */
  void stop();

  /** Starts it again on the same port with the same data. */
  void start();

  /** Where the server came from, for the test log. */
  String describe();

  default String jdbcUrl(String database) {
    return "jdbc:postgresql://" + host() + ":" + port() + "/" + database;
  }

  default Connection connect(String database) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", user());
    if (password() != null) p.setProperty("password", password());
    p.setProperty("connectTimeout", "5");
    return DriverManager.getConnection(jdbcUrl(database), p);
  }

  /** Creates an empty database of that name; tests each get their own so they cannot see each other. */
  default void createDatabase(String name) {
    try (Connection c = connect(adminDatabase()); Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE \"" + name + "\"");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create test database " + name + ": " + e.getMessage(), e);
    }
  }

  default String adminDatabase() {
    return "postgres";
  }
}
