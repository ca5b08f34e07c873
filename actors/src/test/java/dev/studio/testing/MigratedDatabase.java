package dev.studio.testing;

import dev.studio.db.Database;
import dev.studio.migrations.BuildInfo;
import dev.studio.migrations.Migrator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;

/** A {@link Database} on this test's fresh database, migrated to this build's schema. */
public final class MigratedDatabase {
  private MigratedDatabase() {}

  public static Database open(TestPostgres pg) {
    Database db = new Database(new Database.Target(pg.url(), pg.user(), pg.password()), "studio-test", 4,
        Duration.ofSeconds(3), Duration.ofSeconds(3), new SimpleMeterRegistry());
    new Migrator(db.dataSource(), BuildInfo.current()).migrate();
    return db;
  }
}
