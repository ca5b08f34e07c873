package dev.studio.app;

import dev.studio.testing.StudioProcess;
import static dev.studio.app.ItSupport.json;
import static dev.studio.app.ItSupport.replicaId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.studio.migrations.BuildInfo;
import dev.studio.migrations.Migrator;
import dev.studio.testing.Await;
import dev.studio.testing.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The schema compatibility rule, on real processes: refuse when too old, unready while behind. */
class SchemaCompatIT {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  @RegisterExtension final Replicas replicas = new Replicas();

  @Test
  void buildBelowTheSchemaFloorRefusesToStart() throws Exception {
    new Migrator(pg.dataSource(), BuildInfo.current()).migrate();
    try (Connection c = pg.connect(); Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE schema_compat SET min_build = '99.0.0'");
    }
    StudioProcess old = replicas.start(pg, "too-old", b -> b);
    int code = old.awaitExit(Duration.ofSeconds(60));
    assertEquals(Main.EXIT_INCOMPATIBLE, code, old.log());
    assertTrue(old.log().contains("schema_compat.min_build = 99.0.0"), old.log());
  }

  @Test
  void schemaBehindTheBuildIsUnreadyUntilMigrated() throws Exception {
    Migrator migrator = new Migrator(pg.dataSource(), BuildInfo.current());
    migrator.migrateTo("1");
    StudioProcess p = replicas.start(pg, "behind", b -> b.prop("studio.migrations.at-startup", "false"));
    Await.until("/readyz to answer", Duration.ofSeconds(60), () -> p.get("/readyz").status() > 0);
    StudioProcess.Reply unready = Await.until("/readyz to report the schema", Duration.ofSeconds(10),
        () -> p.get("/readyz"), r -> r.body().contains("build needs"));
    assertEquals(503, unready.status(), unready.body());
    assertEquals(200, p.get("/livez").status());

    StudioProcess migrate = replicas.track(StudioProcess.builder("migrate-cli")
        .database(pg.url(), pg.user(), pg.password()).args("migrate").start());
    assertEquals(0, migrate.awaitExit(Duration.ofSeconds(60)), migrate.log());

    p.awaitReady(Duration.ofSeconds(10));
    var checks = json(p.get("/readyz").body()).get("checks");
    assertTrue(checks.toString().contains("schema at " + migrator.requiredVersion()), checks.toString());

    StudioProcess list = replicas.track(StudioProcess.builder("replicas-cli")
        .database(pg.url(), pg.user(), pg.password()).args("replicas").start());
    assertEquals(0, list.awaitExit(Duration.ofSeconds(60)), list.log());
    assertTrue(list.log().contains(replicaId(p)), list.log());
  }
}
