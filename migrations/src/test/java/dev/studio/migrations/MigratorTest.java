package dev.studio.migrations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.studio.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class MigratorTest {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();

  @Test
  void migratorsStartedTogetherMigrateOnce() throws Exception {
    int n = 4;
    ExecutorService pool = Executors.newFixedThreadPool(n);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<SchemaStatus>> results = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      results.add(pool.submit(() -> {
        Migrator m = new Migrator(pg.dataSource(), new BuildInfo("0.1.0"));
        go.await();
        return m.migrate();
      }));
    }
    go.countDown();
    for (Future<SchemaStatus> f : results) {
      SchemaStatus s = f.get(60, TimeUnit.SECONDS);
      assertFalse(s.behind(), s.describe());
    }
    pool.shutdown();
    try (Connection c = pg.connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery(
             "SELECT count(*), count(DISTINCT version) FROM flyway_schema_history WHERE version IS NOT NULL")) {
      rs.next();
      assertEquals(rs.getInt(2), rs.getInt(1), "every migration recorded exactly once");
      assertTrue(rs.getInt(1) >= 2, "both foundation migrations applied");
    }
  }

  @Test
  void buildBelowTheFloorIsRefusedBeforeAndAfterMigrating() throws Exception {
    new Migrator(pg.dataSource(), new BuildInfo("0.1.0")).migrate();
    try (Connection c = pg.connect(); Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE schema_compat SET min_build = '2.5.0'");
    }
    var old = new Migrator(pg.dataSource(), new BuildInfo("2.4.9"));
    var e = assertThrows(IncompatibleSchemaException.class, old::migrate);
    assertTrue(e.getMessage().contains("2.5.0"), e.getMessage());
    assertThrows(IncompatibleSchemaException.class, old::inspect);
    // a build at the floor, or newer, is served
    assertFalse(new Migrator(pg.dataSource(), new BuildInfo("2.5.0")).migrate().behind());
    assertFalse(new Migrator(pg.dataSource(), new BuildInfo("10.0.0-SNAPSHOT")).inspect().behind());
  }

  @Test
  void schemaBehindTheBuildIsReportedUntilMigrated() {
    Migrator m = new Migrator(pg.dataSource(), new BuildInfo("0.1.0"));
    assertTrue(m.inspect().behind(), "an empty database is behind");
    SchemaStatus partial = m.migrateTo("1");
    assertTrue(partial.behind(), partial.describe());
    assertEquals("1", partial.applied());
    SchemaStatus full = m.migrate();
    assertFalse(full.behind(), full.describe());
    assertEquals(m.requiredVersion(), full.applied());
  }

  @Test
  void versionsCompareNumerically() {
    assertTrue(BuildInfo.compare("0.10.0", "0.9.1") > 0);
    assertEquals(0, BuildInfo.compare("1.2", "1.2.0-SNAPSHOT"));
    assertTrue(BuildInfo.compare("1.2.3", "1.3") < 0);
  }
}
