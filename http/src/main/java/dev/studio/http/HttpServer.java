package dev.studio.http;

import dev.studio.cache.SignalCache;
import dev.studio.cluster.ClusterStore;
import dev.studio.cluster.ClusterViews;
import dev.studio.lease.LeaseStore;
import dev.studio.run.RunStore;
import dev.studio.run.Runs;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import dev.studio.drain.DrainCoordinator;
import dev.studio.metrics.Metrics;
import dev.studio.probe.Readiness;
import dev.studio.replica.ReplicaStatus;
import dev.studio.replica.ReplicaStore;
import dev.studio.replica.ReplicaView;
import dev.studio.settings.StudioSettings;
import dev.studio.stream.FrameStore;
import dev.studio.stream.SseHub;
import java.util.List;
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

/** Binds Studio's routes and takes part in the drain: stop accepting, reconnect streams, finish requests. */
public final class HttpServer {
  private HttpServer() {}

  /** What the routes serve from. */
  public record Services(StudioSettings settings, ReplicaStatus status, Readiness readiness, Metrics metrics,
      ReplicaStore replicas, SignalCache<List<ReplicaView>> replicaCache, SseHub hub, FrameStore frames,
      ClusterStore clusters, ClusterViews clusterViews, LeaseStore leases, RunStore runStore,
      ActorRef<Runs.Command> runs) {}

  public static Route routes(Services s, Executor jdbc, Scheduler scheduler) {
    return Problems.handled(() -> concat(
        ProbeRoutes.create(s.status(), s.readiness(), s.metrics()),
        pathPrefix("api", () -> pathPrefix("v1", () -> concat(
            ReplicaRoutes.create(s.replicas(), s.replicaCache(), s.settings().replica().goneAfter(), jdbc),
            StreamRoutes.create(s.hub(), s.frames(), jdbc),
            ClusterRoutes.create(s.clusters(), s.clusterViews(), s.leases(), jdbc),
            RunRoutes.create(s.runStore(), s.runs(), scheduler, jdbc))))));
  }

  public static CompletionStage<ServerBinding> start(ActorSystem<?> system, Services services, DrainCoordinator drain) {
    Executor jdbc = system.dispatchers().lookup(DispatcherSelector.fromConfig(StudioSettings.DB_DISPATCHER));
    StudioSettings settings = services.settings();
    return Http.get(system).newServerAt(settings.http().host(), settings.http().port()).bind(routes(services, jdbc, system.scheduler()))
        .thenApply(binding -> {
          drain.addTask(CoordinatedShutdown.PhaseServiceUnbind(), "studio-http-unbind", () ->
              binding.unbind().thenApply(x -> {
                services.hub().reconnectAll();
                return Done.getInstance();
              }));
          drain.addTask(CoordinatedShutdown.PhaseServiceRequestsDone(), "studio-http-requests-done",
              () -> binding.terminate(settings.drain().requestDeadline()).thenApply(x -> Done.getInstance()));
          return binding;
        });
  }
}
