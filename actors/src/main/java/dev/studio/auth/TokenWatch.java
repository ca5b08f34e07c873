package dev.studio.auth;

import dev.studio.bus.BusMessage;
import dev.studio.bus.BusSubscriber;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-checks the tokens of this replica's open streams: one query for all of them every
 * {@code auth.stream-recheck}, and at once when a revocation signal arrives over the bus. A stream
 * whose token is revoked (or deleted) has its {@link #watch} future completed and closes itself. A
 * database that does not answer cuts nothing: the next round decides.
 */
public final class TokenWatch implements BusSubscriber {
  private static final Logger log = LoggerFactory.getLogger(TokenWatch.class);
  private final TokenStore tokens;
  private final Executor jdbc;
  private final ConcurrentHashMap<UUID, Set<CompletableFuture<Void>>> open = new ConcurrentHashMap<>();
  private final AtomicBoolean running = new AtomicBoolean();
  private final AtomicBoolean again = new AtomicBoolean();

  public TokenWatch(TokenStore tokens, Executor jdbc) {
    this.tokens = tokens;
    this.jdbc = jdbc;
  }

  /** Completes when {@code tokenId} stops being valid; cancel it when the stream ends. */
  public CompletableFuture<Void> watch(UUID tokenId) {
    CompletableFuture<Void> revoked = new CompletableFuture<>();
    open.computeIfAbsent(tokenId, k -> ConcurrentHashMap.newKeySet()).add(revoked);
    revoked.whenComplete((x, e) -> open.computeIfPresent(tokenId, (k, set) -> {
      set.remove(revoked);
      return set.isEmpty() ? null : set;
    }));
    return revoked;
  }

  public int watched() {
    return open.values().stream().mapToInt(Set::size).sum();
  }

  /** Checks every watched token on the JDBC dispatcher; calls during a check cause one more round. */
  public void checkNow() {
    if (open.isEmpty()) return;
    again.set(true);
    if (!running.compareAndSet(false, true)) return;
    jdbc.execute(() -> {
      try {
        while (again.getAndSet(false)) check();
      } finally {
        running.set(false);
        if (again.get()) checkNow();
      }
    });
  }

  private void check() {
    Set<UUID> ids = Set.copyOf(open.keySet());
    try {
      Set<UUID> valid = tokens.stillValid(ids);
      for (UUID id : ids) {
        if (valid.contains(id)) continue;
        Set<CompletableFuture<Void>> streams = open.remove(id);
        if (streams == null) continue;
        log.info("token {} is no longer valid: closing {} stream(s)", id, streams.size());
        for (CompletableFuture<Void> s : streams) s.complete(null);
      }
    } catch (Exception e) {
      log.debug("token re-check failed, streams stay open until the next round: {}", e.getMessage());
    }
  }

  @Override
  public void onMessage(BusMessage message) {
    if (message instanceof BusMessage.Signal s && s.kind().equals(TokenStore.SIGNAL_KIND)) checkNow();
  }
}
