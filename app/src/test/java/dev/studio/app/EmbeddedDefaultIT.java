package dev.studio.app;

import dev.studio.testing.StudioProcess;
import static dev.studio.app.ItSupport.listed;
import static dev.studio.app.ItSupport.replicaId;
import static dev.studio.app.ItSupport.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** With no STUDIO_DB_URL the jar runs on an embedded PostgreSQL whose data survives a restart. */
class EmbeddedDefaultIT {
  @RegisterExtension final Replicas replicas = new Replicas();

  @Test
  void embeddedDefaultServesAndFindsItsDataAgain() throws Exception {
    Path dataDir = Files.createTempDirectory("studio-embedded-it");
    long t0 = System.nanoTime();
    StudioProcess first = replicas.track(StudioProcess.builder("embedded-1")
        .env("STUDIO_DATA_DIR", dataDir.toString()).prop("studio.drain.lb-grace", "0s").start());
    first.awaitReady(Duration.ofSeconds(90));
    System.out.printf("embedded default, start to /readyz 200: %.1f s%n", seconds(t0));
    assertTrue(first.log().contains("using embedded PostgreSQL"), first.log());
    String firstId = replicaId(first);
    first.signal("TERM");
    assertEquals(0, first.awaitExit(Duration.ofSeconds(30)), first.log());

    StudioProcess second = replicas.track(StudioProcess.builder("embedded-2")
        .env("STUDIO_DATA_DIR", dataDir.toString()).prop("studio.drain.lb-grace", "0s").start());
    second.awaitReady(Duration.ofSeconds(90));
    var previous = listed(second, firstId).orElseThrow(() -> new AssertionError("first run's row is gone"));
    assertEquals("clean", previous.get("ended").asText());
    second.signal("TERM");
    assertEquals(0, second.awaitExit(Duration.ofSeconds(30)), second.log());
    assertTrue(Files.exists(dataDir.resolve("pg").resolve("PG_VERSION")));
  }
}
