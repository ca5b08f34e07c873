package dev.studio.app;

import dev.studio.db.Database;
import dev.studio.metrics.Metrics;
import dev.studio.settings.StudioSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The database this process uses: {@code STUDIO_DB_URL}'s, or the embedded default. */
final class Storage implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Storage.class);
  private final Database db;
  private final EmbeddedDatabase embedded;

  private Storage(Database db, EmbeddedDatabase embedded) {
    this.db = db;
    this.embedded = embedded;
  }

  static Storage open(StudioSettings settings, String applicationName, Metrics metrics) throws Exception {
    StudioSettings.Db cfg = settings.db();
    EmbeddedDatabase embedded = null;
    Database.Target target;
    if (cfg.url().isPresent()) {
      target = new Database.Target(cfg.url().get(), cfg.user(), cfg.password());
      log.info("using PostgreSQL at {}", redact(target.url()));
    } else {
      embedded = EmbeddedDatabase.open(cfg.dataDir(), cfg.embeddedPort());
      target = embedded.target();
    }
    Database db = new Database(target, applicationName, cfg.poolSize(), cfg.connectionTimeout(),
        cfg.connectTimeout(), metrics == null ? null : metrics.registry());
    return new Storage(db, embedded);
  }

  Database db() {
    return db;
  }

  private static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&]*", "$1***");
  }

  @Override
  public void close() {
    db.close();
    if (embedded != null) {
      try {
        embedded.close();
      } catch (Exception e) {
        log.warn("embedded PostgreSQL did not stop cleanly: {}", e.getMessage());
      }
    }
  }
}
