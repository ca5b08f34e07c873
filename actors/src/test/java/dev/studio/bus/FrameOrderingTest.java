package dev.studio.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.studio.db.Database;
import dev.studio.testing.MigratedDatabase;
import dev.studio.testing.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Why frame writers take the ordering lock: replay reads {@code id > last}, which is only safe if no
 * frame commits after a frame with a larger id.
 */
class FrameOrderingTest {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  private Database db;

  @BeforeEach
  void open() {
    db = MigratedDatabase.open(pg);
  }

  @AfterEach
  void close() {
    db.close();
  }

  private static long insert(Connection c) throws SQLException {
    return Database.query(c, "INSERT INTO stream_frame (topic, data) VALUES ('t', '{}') RETURNING id",
        rs -> rs.getLong(1)).get(0);
  }

  private List<Long> replayAfter(long last) throws SQLException {
    return db.query("SELECT id FROM stream_frame WHERE id > ? ORDER BY id", rs -> rs.getLong(1), last);
  }

  @Test
  void withoutTheLockAReaderSkipsAFrameThatCommittedLate() throws Exception {
    try (Connection early = pg.connect(); Connection late = pg.connect()) {
      early.setAutoCommit(false);
      late.setAutoCommit(false);
      long first = insert(early);  // takes the smaller id, commits last
      long second = insert(late);
      late.commit();
      List<Long> seen = replayAfter(0);
      assertEquals(List.of(second), seen, "the reader sees only the larger id");
      early.commit();
      List<Long> next = replayAfter(seen.get(seen.size() - 1));
      assertTrue(next.isEmpty() && first < second, "frame " + first + " is skipped for good: the hazard the lock prevents");
    }
  }

  @Test
  void withTheLockASecondWriterCannotTakeAnIdUntilTheFirstCommits() throws Exception {
    try (Connection early = pg.connect(); Connection late = pg.connect()) {
      early.setAutoCommit(false);
      late.setAutoCommit(false);
      Database.lockForTransaction(early, FramePublisher.ORDER_LOCK);
      long first = insert(early);
      try (Statement st = late.createStatement()) {
        st.execute("SET LOCAL lock_timeout = '300ms'");
      }
      // the second writer waits for the lock before it may take an id
      SQLException blocked = assertThrows(SQLException.class, () -> Database.lockForTransaction(late, FramePublisher.ORDER_LOCK));
      assertEquals("55P03", blocked.getSQLState(), "lock_not_available: it was made to wait");
      late.rollback();
      early.commit();
      Database.lockForTransaction(late, FramePublisher.ORDER_LOCK);
      long second = insert(late);
      late.commit();
      assertTrue(second > first);
      assertEquals(List.of(first, second), replayAfter(0));
    }
  }
}
