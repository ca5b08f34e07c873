package dev.studio.bus;

import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.PGStream;
import org.postgresql.core.QueryExecutorBase;

/**
 * Makes pgjdbc hand each notification on as it arrives.
 *
 * <p>{@code getNotifications(timeout)} reads the first notification and then keeps reading while
 * {@code PGStream.hasMessagePending()} says more is coming. That check peeks the socket with a 1 ms
 * timeout: every return pays about 1 ms, and under a steady stream (a notification less than 1 ms
 * after the last, from about 1,000/s) the call does not return at all until the stream pauses —
 * notifications are held back by tens to hundreds of milliseconds (measured: bench/run bus-latency).
 *
 * <p>The driver skips the peek while {@code nextStreamAvailableCheckTime} lies in the future. Pushing
 * it to the end of time on the LISTEN connection (which runs nothing else) leaves exactly the useful
 * part: return once the bytes already buffered are parsed. The field is private, so this is checked
 * by a test against the pinned driver version; if it ever fails, the bus still works, only slower.
 */
public final class PushReads {
  private PushReads() {}

  /** True if the LISTEN connection now returns each notification without waiting for more. */
  public static boolean enable(Connection connection) {
    try {
      BaseConnection base = connection.unwrap(BaseConnection.class);
      Field streamField = QueryExecutorBase.class.getDeclaredField("pgStream");
      streamField.setAccessible(true);
      PGStream stream = (PGStream) streamField.get(base.getQueryExecutor());
      stream.setMinStreamAvailableCheckDelay(1000); // non-zero: the "skip the peek" branch is live
      Field next = PGStream.class.getDeclaredField("nextStreamAvailableCheckTime");
      next.setAccessible(true);
      next.setLong(stream, Long.MAX_VALUE);
      return true;
    } catch (ReflectiveOperationException | SQLException | RuntimeException e) {
      return false;
    }
  }
}
