package dev.studio.app;

import dev.studio.testing.StudioProcess;
import dev.studio.testing.TestPostgres;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts real replicas for a test, prints their logs when the test fails, and kills whatever is
 * left when it ends. Timings are shortened through config unless a test asks for the defaults.
 */
public final class Replicas implements AfterEachCallback {
  private final List<StudioProcess> started = new ArrayList<>();

  /** A replica on this test's database with short timings. */
  public StudioProcess start(TestPostgres pg, String name, UnaryOperator<StudioProcess.Builder> extra) throws IOException {
    StudioProcess.Builder b = StudioProcess.builder(name)
        .database(pg.url(), pg.user(), pg.password())
        .prop("studio.drain.lb-grace", "500ms")
        .prop("studio.replica.heartbeat-interval", "500ms")
        .prop("studio.replica.gone-after", "3s")
        // load tests drive the one admin token far past the default per-token limit; RateLimitIT sets its own
        .prop("studio.auth.rate-limit.per-second", "2000").prop("studio.auth.rate-limit.burst", "4000");
    return track(extra.apply(b).start());
  }

  public StudioProcess track(StudioProcess p) {
    started.add(p);
    return p;
  }

  @Override
  public void afterEach(ExtensionContext context) {
    stopAll(context.getExecutionException().isPresent());
  }

  /** Kills what is left; with {@code printLogs}, prints every replica's log first. */
  public void stopAll(boolean printLogs) {
    if (printLogs) {
      for (StudioProcess p : started) {
        System.out.println("===== log of " + p.name() + " =====\n" + p.log());
      }
    }
    started.forEach(StudioProcess::close);
    started.clear();
  }
}
