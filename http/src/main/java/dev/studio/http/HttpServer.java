package dev.studio.http;

import dev.studio.drain.DrainCoordinator;
import dev.studio.metrics.Metrics;
import dev.studio.probe.Readiness;
import dev.studio.replica.ReplicaStatus;
import dev.studio.replica.ReplicaStore;
import dev.studio.settings.StudioSettings;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.server.Route;

import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;

/** Binds Studio's routes and takes part in the drain: stop accepting, then let requests finish. */
public final class HttpServer {
  private HttpServer() {}

  public static Route routes(StudioSettings settings, ReplicaStatus status, Readiness readiness, Metrics metrics,
      ReplicaStore replicas, Executor jdbc) {
    return Problems.handled(() -> concat(
        ProbeRoutes.create(status, readiness, metrics),
        pathPrefix("api", () -> pathPrefix("v1", () -> concat(
            ReplicaRoutes.create(replicas, settings.replica().goneAfter(), jdbc))))));
  }

  public static CompletionStage<ServerBinding> start(ActorSystem<?> system, StudioSettings settings,
      ReplicaStatus status, Readiness readiness, Metrics metrics, ReplicaStore replicas, DrainCoordinator drain) {
    Executor jdbc = system.dispatchers().lookup(DispatcherSelector.fromConfig(StudioSettings.DB_DISPATCHER));
    Route route = routes(settings, status, readiness, metrics, replicas, jdbc);
    return Http.get(system).newServerAt(settings.http().host(), settings.http().port()).bind(route)
        .thenApply(binding -> {
          drain.addTask(CoordinatedShutdown.PhaseServiceUnbind(), "studio-http-unbind",
              () -> binding.unbind().thenApply(x -> Done.getInstance()));
          drain.addTask(CoordinatedShutdown.PhaseServiceRequestsDone(), "studio-http-requests-done",
              () -> binding.terminate(settings.drain().requestDeadline()).thenApply(x -> Done.getInstance()));
          return binding;
        });
  }
}
