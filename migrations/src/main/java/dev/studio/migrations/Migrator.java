package dev.studio.migrations;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationState;
import org.flywaydb.core.api.MigrationVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs Flyway and enforces the schema compatibility rule.
 *
 * <p>Replicas that start together serialize on a session advisory lock, so exactly one of them
 * migrates and the others find the work done; the floor is checked under the same lock, before and
 * after migrating, so a build never runs against a schema that has moved past it.
 */
public final class Migrator {
  private static final Logger log = LoggerFactory.getLogger(Migrator.class);
  /** Advisory lock key: "studio migrate" folded into a bigint; any fixed number unique to Studio. */
  static final long LOCK_KEY = 0x5354_5544_494f_4d31L;

  private final DataSource dataSource;
  private final BuildInfo build;
  private final String requiredVersion;

  public Migrator(DataSource dataSource, BuildInfo build) {
    this.dataSource = dataSource;
    this.build = build;
    this.requiredVersion = latestShipped(flyway(null));
  }

  /** Checks the floor, migrates, checks again; throws {@link IncompatibleSchemaException} if too old. */
  public SchemaStatus migrate() {
    return migrateTo(null);
  }

  /** As {@link #migrate()}, stopping at {@code target} (tests use it to leave a schema behind). */
  public SchemaStatus migrateTo(String target) {
    try (Connection lockConn = dataSource.getConnection()) {
      advisory(lockConn, "pg_advisory_lock");
      try {
        checkFloor(lockConn);
        var result = flyway(target).migrate();
        if (result.migrationsExecuted > 0) {
          log.info("applied {} migration(s); schema now at {}", result.migrationsExecuted, result.targetSchemaVersion);
        } else {
          log.info("schema up to date, nothing to migrate");
        }
        checkFloor(lockConn);
        return inspect(lockConn);
      } finally {
        advisory(lockConn, "pg_advisory_unlock");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("migration failed: " + e.getMessage(), e);
    }
  }

  /** Reads where the schema stands without changing it; also checks the floor. */
  public SchemaStatus inspect() {
    try (Connection c = dataSource.getConnection()) {
      checkFloor(c);
      return inspect(c);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot inspect schema: " + e.getMessage(), e);
    }
  }

  /** Cheap enough for every readiness check: two indexed reads, no classpath scan. */
  public SchemaStatus inspect(Connection c) throws SQLException {
    String applied = null;
    String minBuild = null;
    try (Statement st = c.createStatement()) {
      if (exists(c, "flyway_schema_history")) {
        try (ResultSet rs = st.executeQuery(
            "SELECT version FROM flyway_schema_history WHERE success AND version IS NOT NULL")) {
          while (rs.next()) {
            String v = rs.getString(1);
            if (applied == null || compareMigrationVersions(v, applied) > 0) applied = v;
          }
        }
      }
      if (exists(c, "schema_compat")) {
        try (ResultSet rs = st.executeQuery("SELECT min_build FROM schema_compat")) {
          if (rs.next()) minBuild = rs.getString(1);
        }
      }
    }
    return new SchemaStatus(applied, requiredVersion, minBuild);
  }

  public String requiredVersion() {
    return requiredVersion;
  }

  public BuildInfo build() {
    return build;
  }

  private void checkFloor(Connection c) throws SQLException {
    String minBuild = inspect(c).minBuild();
    if (minBuild != null && BuildInfo.compare(build.version(), minBuild) < 0) {
      throw new IncompatibleSchemaException(build.version(), minBuild);
    }
  }

  private Flyway flyway(String target) {
    var config = Flyway.configure()
        .dataSource(dataSource)
        .locations("classpath:db/migration")
        // a newer build may already have applied migrations we do not know: that is a rolling update
        .ignoreMigrationPatterns("*:future")
        .cleanDisabled(true);
    if (target != null) config.target(target);
    return config.load();
  }

  private static String latestShipped(Flyway flyway) {
    // info() without a database round trip beyond the history read; only migrations found on the classpath count
    MigrationInfo[] all = flyway.info().all();
    return Arrays.stream(all)
        .filter(i -> i.getVersion() != null && i.getState() != MigrationState.FUTURE_SUCCESS
            && i.getState() != MigrationState.FUTURE_FAILED)
        .map(MigrationInfo::getVersion)
        .max(MigrationVersion::compareTo)
        .map(MigrationVersion::getVersion)
        .orElseThrow(() -> new IllegalStateException("no migrations on the classpath"));
  }

  static int compareMigrationVersions(String a, String b) {
    return MigrationVersion.fromVersion(a).compareTo(MigrationVersion.fromVersion(b));
  }

  private static boolean exists(Connection c, String table) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  private static void advisory(Connection c, String function) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + function + "(?)")) {
      ps.setLong(1, LOCK_KEY);
      ps.execute();
    }
  }
}
