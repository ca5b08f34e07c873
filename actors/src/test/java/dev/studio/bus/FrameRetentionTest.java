package dev.studio.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.studio.db.Database;
import dev.studio.testing.MigratedDatabase;
import dev.studio.testing.TestPostgres;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class FrameRetentionTest {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  private Database db;

  @BeforeEach
  void open() throws Exception {
    db = MigratedDatabase.open(pg);
    // 2,500 old frames (more than two batches) and 10 recent ones
    db.update("""
        INSERT INTO stream_frame (topic, data, created_at)
        SELECT 't', '{}', now() - interval '2 days' FROM generate_series(1, 2500)""");
    db.update("INSERT INTO stream_frame (topic, data) SELECT 't', '{}' FROM generate_series(1, 10)");
  }

  @AfterEach
  void close() {
    db.close();
  }

  private long count() throws Exception {
    return db.queryOne("SELECT count(*) FROM stream_frame", rs -> rs.getLong(1)).orElseThrow();
  }

  @Test
  void prunesOldFramesInBatchesAndRecordsTheHighestPrunedId() throws Exception {
    assertEquals(2500, FrameRetention.pruneRound(db, Duration.ofHours(24)));
    assertEquals(10, count());
    long pruned = db.queryOne("SELECT pruned_through FROM stream_retention", rs -> rs.getLong(1)).orElseThrow();
    long oldestKept = db.queryOne("SELECT min(id) FROM stream_frame", rs -> rs.getLong(1)).orElseThrow();
    assertEquals(oldestKept - 1, pruned, "replay below this id resyncs");
    assertEquals(0, FrameRetention.pruneRound(db, Duration.ofHours(24)), "nothing left to prune");
  }

  @Test
  void oneReplicaAtATime() throws Exception {
    try (Connection other = pg.connect()) {
      other.setAutoCommit(false);
      Database.query(other, "SELECT pg_advisory_xact_lock(?)", rs -> 1, FrameRetention.PRUNE_LOCK);
      assertEquals(0, FrameRetention.pruneRound(db, Duration.ofHours(24)), "another replica is pruning: skip the round");
      assertEquals(2510, count());
      other.rollback();
    }
    assertEquals(2500, FrameRetention.pruneRound(db, Duration.ofHours(24)));
  }
}
