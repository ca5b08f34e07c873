package dev.studio.bus;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * Sends bus notifications <em>inside the caller's transaction</em>: they go out on commit and not at
 * all on rollback. Every receiver, the sender's own replica included, handles them on arrival.
 * PostgreSQL collapses identical notifications within one transaction; that is harmless for
 * signals (idempotent), and frames and events never repeat.
 */
public final class Notify {
  public static final String CHANNEL = "studio";
  // the database's clock closes every payload, for the delivery-lag metric
  // (a function scan yields the array in order, so several payloads keep their order in one round trip)
  private static final String SQL = "SELECT pg_notify('" + CHANNEL + "', p || ',\"ts\":'"
      + " || (extract(epoch FROM clock_timestamp()) * 1000)::bigint || '}') FROM unnest(?::text[]) AS x(p)";

  private Notify() {}

  public static void signal(Connection c, String kind, String key) throws SQLException {
    send(c, List.of(BusCodec.signalPrefix(kind, key)));
  }

  public static void events(Connection c, List<Long> seqs) throws SQLException {
    if (!seqs.isEmpty()) send(c, List.of(BusCodec.eventsPrefix(seqs)));
  }

  public static void frames(Connection c, List<BusMessage.Frame> frames) throws SQLException {
    send(c, BusCodec.framePrefixes(frames));
  }

  /** Sends prefixes built by {@link BusCodec}; returns the number of notifications. */
  static int send(Connection c, List<String> prefixes) throws SQLException {
    if (prefixes.isEmpty()) return 0;
    try (PreparedStatement ps = c.prepareStatement(SQL)) {
      ps.setArray(1, c.createArrayOf("text", prefixes.toArray()));
      ps.execute();
    }
    return prefixes.size();
  }
}
