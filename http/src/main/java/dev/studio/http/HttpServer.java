package dev.studio.http;

import dev.studio.auth.AuditLog;
import dev.studio.auth.IdempotencyStore;
import dev.studio.auth.RateLimits;
import dev.studio.auth.StreamTickets;
import dev.studio.auth.TokenStore;
import dev.studio.auth.TokenWatch;
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
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;

/** Binds Studio's routes and takes part in the drain: stop accepting, reconnect streams, finish requests. */
public final class HttpServer {
  private HttpServer() {}

  /** What the routes serve from. */
  public record Services(StudioSettings settings, ReplicaStatus status, Readiness readiness, Metrics metrics,
      ReplicaStore replicas, SignalCache<List<ReplicaView>> replicaCache, SseHub hub, FrameStore frames,
      ClusterStore clusters, ClusterViews clusterViews, LeaseStore leases, RunStore runStore,
      ActorRef<Runs.Command> runs, Security security) {}

  /** Tokens, tickets, limits, idempotency keys and the audit log. */
  public record Security(TokenStore tokens, StreamTickets tickets, RateLimits limits, IdempotencyStore idempotency,
      AuditLog audit, TokenWatch watch) {}

  /**
   * Probes and metrics are open; everything under {@code /api} needs a token (the stream also takes
   * a ticket), so an unknown path without one is 401, not 404.
   */
  public static Route routes(Services s, Executor jdbc, Scheduler scheduler) {
    Security sec = s.security();
    Auth auth = new Auth(new Auth.Services(sec.tokens(), sec.tickets(), sec.limits(), sec.idempotency(), sec.audit(), jdbc));
    return Problems.handled(() -> concat(
        ProbeRoutes.create(s.status(), s.readiness(), s.metrics()),
        pathPrefix("api", () -> concat(
            path(PathMatchers.segment("v1").slash("stream"), () -> auth.bearerOrTicket(caller ->
                StreamRoutes.stream(caller, s.hub(), sec.watch()))),
            auth.bearer(caller -> pathPrefix("v1", () -> concat(
                ReplicaRoutes.create(s.replicas(), s.replicaCache(), s.settings().replica().goneAfter(), jdbc),
                StreamRoutes.create(caller, s.hub(), s.frames(), jdbc),
                ClusterRoutes.create(caller, s.clusters(), s.clusterViews(), s.leases(), jdbc),
                RunRoutes.create(caller, s.runStore(), s.runs(), scheduler, jdbc),
                TokenRoutes.create(caller, auth.services()))))))));
  }

  public static CompletionStage<ServerBinding> start(ActorSystem<?> system, Services services, DrainCoordinator drain) {
    Executor jdbc = system.dispatchers().lookup(DispatcherSelector.fromConfig(StudioSettings.DB_DISPATCHER));
    StudioSettings settings = services.settings();
    return Http.get(system).newServerAt(settings.http().host(), settings.http().port())
        .adaptSettings(server -> server.withMaxConnections(settings.http().maxConnections())
            .withParserSettings(server.getParserSettings().withMaxContentLength(settings.http().maxBody())))
        .bind(routes(services, jdbc, system.scheduler()))
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
