package dev.studio.bus;

import dev.studio.db.Database;
import dev.studio.settings.StudioSettings;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Prunes {@code stream_frame} rows older than {@code stream.retention} in small batches. Every
 * replica runs the timer, but a transaction-scoped advisory lock lets one replica at a time do the
 * work; the others skip the round. The highest pruned id is recorded for replay's resync check.
 */
public final class FrameRetention {
  static final long PRUNE_LOCK = 0x5354_5544_494f_5052L;
  private static final int BATCH = 1_000;
  private static final int MAX_BATCHES_PER_ROUND = 100;

  public sealed interface Command {}

  private record Prune() implements Command {}

  private record Pruned(int rows, Throwable failure) implements Command {}

  private FrameRetention() {}

  public static Behavior<Command> create(Database db, StudioSettings.Stream settings) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
      var jdbc = ctx.getSystem().dispatchers().lookup(DispatcherSelector.fromConfig(StudioSettings.DB_DISPATCHER));
      timers.startTimerWithFixedDelay(new Prune(), settings.pruneInterval());
      return Behaviors.receive(Command.class)
          .onMessage(Prune.class, p -> {
            ctx.pipeToSelf(CompletableFuture.supplyAsync(() -> pruneRound(db, settings.retention()), jdbc),
                (rows, failure) -> new Pruned(rows == null ? 0 : rows, failure));
            return Behaviors.same();
          })
          .onMessage(Pruned.class, p -> {
            if (p.failure() != null) {
              ctx.getLog().warn("frame retention round failed: {}", p.failure().getMessage());
            } else if (p.rows() > 0) {
              ctx.getLog().info("pruned {} stream frame(s) older than {}", p.rows(), settings.retention());
            }
            return Behaviors.same();
          })
          .build();
    }));
  }

  /** One round: batches until none is full, bounded; returns rows deleted. */
  public static int pruneRound(Database db, Duration retention) {
    int total = 0;
    try {
      for (int i = 0; i < MAX_BATCHES_PER_ROUND; i++) {
        int n = pruneBatch(db, retention);
        if (n < 0) break; // another replica holds the lock
        total += n;
        if (n < BATCH) break;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    return total;
  }

  private static int pruneBatch(Database db, Duration retention) throws SQLException {
    return db.inTransaction(c -> {
      boolean mine = Database.query(c, "SELECT pg_try_advisory_xact_lock(?)", rs -> rs.getBoolean(1), PRUNE_LOCK).get(0);
      if (!mine) return -1;
      return Database.query(c, """
          WITH gone AS (
            DELETE FROM stream_frame WHERE id IN (
              SELECT id FROM stream_frame WHERE created_at < now() - make_interval(secs => ?)
              ORDER BY id LIMIT ?)
            RETURNING id),
          mark AS (
            UPDATE stream_retention SET pruned_through = greatest(pruned_through, (SELECT max(id) FROM gone))
            WHERE EXISTS (SELECT 1 FROM gone))
          SELECT count(*) FROM gone""", rs -> rs.getInt(1), retention.toMillis() / 1000.0, BATCH).get(0);
    });
  }
}
