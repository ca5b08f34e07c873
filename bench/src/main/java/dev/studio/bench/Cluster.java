package dev.studio.bench;

import dev.studio.testing.EmbeddedServer;
import dev.studio.testing.StudioProcess;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The bench's own PostgreSQL and replica processes, on loopback, torn down at the end. */
final class Cluster implements AutoCloseable {
  final EmbeddedServer pg = new EmbeddedServer();
  final String database = "bench";
  final List<StudioProcess> replicas = new ArrayList<>();

  Cluster() throws Exception {
    pg.createDatabase(database);
    try (Connection c = pg.connect(database); Statement st = c.createStatement()) {
      st.execute("SELECT 1");
    }
  }

  String url() {
    return pg.jdbcUrl(database);
  }

  StudioProcess start(String name, String... props) throws Exception {
    StudioProcess.Builder b = StudioProcess.builder(name).database(url(), pg.user(), "").peakJit()
        .prop("studio.auth.rate-limit.per-second", "0"); // benchmarks measure Studio, not the per-token limit
    for (int i = 0; i + 1 < props.length; i += 2) b.prop(props[i], props[i + 1]);
    StudioProcess p = b.start();
    replicas.add(p);
    p.awaitReady(Duration.ofSeconds(90));
    return p;
  }

  @Override
  public void close() {
    replicas.forEach(StudioProcess::close);
    pg.stop();
  }
}
