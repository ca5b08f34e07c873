package dev.studio.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/** The shared PostgreSQL: a HikariCP pool and the few JDBC shapes Studio uses. */
public final class Database implements AutoCloseable {

  /** Where to connect: the URL and credentials, whether configured or of the embedded server. */
  public record Target(String url, String user, String password) {}

  @FunctionalInterface
  public interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  @FunctionalInterface
  public interface Row<T> {
    T map(ResultSet rs) throws SQLException;
  }

  private final HikariDataSource pool;
  private final Target target;

  public Database(Target target, String applicationName, int poolSize, Duration connectionTimeout,
      Duration connectTimeout, MeterRegistry registry) {
    this.target = target;
    HikariConfig cfg = new HikariConfig();
    cfg.setPoolName("studio");
    cfg.setJdbcUrl(target.url());
    if (!target.user().isEmpty()) cfg.setUsername(target.user());
    if (!target.password().isEmpty()) cfg.setPassword(target.password());
    cfg.setMaximumPoolSize(poolSize);
    cfg.setMinimumIdle(Math.min(2, poolSize));
    cfg.setConnectionTimeout(connectionTimeout.toMillis());
    cfg.setValidationTimeout(Math.min(connectionTimeout.toMillis(), 1000));
    // a database that is down at startup is waited for by readiness, not fatal to the pool
    cfg.setInitializationFailTimeout(-1);
    cfg.addDataSourceProperty("ApplicationName", applicationName);
    cfg.addDataSourceProperty("tcpKeepAlive", "true");
    cfg.addDataSourceProperty("connectTimeout", String.valueOf(Math.max(1, connectTimeout.toSeconds())));
    cfg.addDataSourceProperty("loginTimeout", String.valueOf(Math.max(1, connectTimeout.toSeconds())));
    if (registry != null) cfg.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(registry));
    this.pool = new HikariDataSource(cfg);
  }

  public DataSource dataSource() {
    return pool;
  }

  public Target target() {
    return target;
  }

  public <T> T withConnection(Work<T> work) throws SQLException {
    try (Connection c = pool.getConnection()) {
      return work.run(c);
    }
  }

  /**
   * Runs {@code work} on a connection that gives up when the server has not answered within
   * {@code timeout}: a database that accepts TCP and never answers must not hang the caller.
   */
  public <T> T withTimeout(Duration timeout, Work<T> work) throws SQLException {
    try (Connection c = pool.getConnection()) {
      c.setNetworkTimeout(Runnable::run, (int) Math.max(1, timeout.toMillis()));
      return work.run(c);
    }
  }

  /** Runs {@code work} in one transaction: committed if it returns, rolled back if it throws. */
  public <T> T inTransaction(Work<T> work) throws SQLException {
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      try {
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    }
  }

  public int update(String sql, Object... params) throws SQLException {
    return withConnection(c -> update(c, sql, params));
  }

  public <T> List<T> query(String sql, Row<T> row, Object... params) throws SQLException {
    return withConnection(c -> query(c, sql, row, params));
  }

  public <T> Optional<T> queryOne(String sql, Row<T> row, Object... params) throws SQLException {
    List<T> all = query(sql, row, params);
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(0));
  }

  /**
   * Takes a transaction-scoped advisory lock (held until commit or rollback). Writers of tables read
   * with {@code after=<id>} take one before taking ids, so ids commit in order.
   */
  public static void lockForTransaction(Connection c, long key) throws SQLException {
    query(c, "SELECT pg_advisory_xact_lock(?)", rs -> Boolean.TRUE, key);
  }

  public static int update(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, params)) {
      return ps.executeUpdate();
    }
  }

  public static <T> List<T> query(Connection c, String sql, Row<T> row, Object... params) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, params); ResultSet rs = ps.executeQuery()) {
      List<T> out = new ArrayList<>();
      while (rs.next()) out.add(row.map(rs));
      return out;
    }
  }

  private static PreparedStatement prepare(Connection c, String sql, Object... params) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    for (int i = 0; i < params.length; i++) ps.setObject(i + 1, params[i]);
    return ps;
  }

  @Override
  public void close() {
    pool.close();
  }
}
