package dev.studio.bus;

import dev.studio.db.Database;
import dev.studio.settings.StudioSettings;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * Owns the one LISTEN connection (never from the pool): connects, listens on {@code studio} and on
 * a private ping channel, runs a {@link BusReader} thread, proves the connection alive with a
 * self-ping through the pool, and reconnects with backoff. Subscribers are called directly by the
 * reader thread, so a notification is handed on without an actor hop.
 */
public final class Bus extends AbstractBehavior<Bus.Command> {

  public sealed interface Command {}

  private record Connect() implements Command {}

  private record Connected(Connection connection, long clockOffsetMillis) implements Command {}

  private record ConnectFailed(Throwable cause) implements Command {}

  private record ReaderStopped(Connection connection, Throwable cause) implements Command {}

  private record Tick() implements Command {}

  /** Subscribers shared with the reader thread. */
  public static final class Subscribers {
    private final List<BusSubscriber> list = new CopyOnWriteArrayList<>();

    public void add(BusSubscriber s) {
      list.add(s);
    }

    public void remove(BusSubscriber s) {
      list.remove(s);
    }
  }

  public static Behavior<Command> create(Database db, String replicaId, StudioSettings.Bus settings,
      BusStatus status, BusMetrics metrics, Subscribers subscribers) {
    return create(db, replicaId, null, settings, status, metrics, subscribers);
  }

  /**
   * @param livenessLock key of the session advisory lock held on the LISTEN connection: PostgreSQL
   *     frees it the instant that connection dies, which tells the other replicas this one is gone
   */
  public static Behavior<Command> create(Database db, String replicaId, Long livenessLock, StudioSettings.Bus settings,
      BusStatus status, BusMetrics metrics, Subscribers subscribers) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
        new Bus(ctx, timers, db, replicaId, livenessLock, settings, status, metrics, subscribers)));
  }

  private final TimerScheduler<Command> timers;
  private final Long livenessLock;
  private final Database db;
  private final String pingChannel;
  private final StudioSettings.Bus settings;
  private final BusStatus status;
  private final BusMetrics metrics;
  private final Subscribers subscribers;
  private final Executor jdbc;
  private Connection connection;
  private Duration backoff;
  private volatile boolean warnedPushReads;

  private Bus(ActorContext<Command> ctx, TimerScheduler<Command> timers, Database db, String replicaId,
      Long livenessLock, StudioSettings.Bus settings, BusStatus status, BusMetrics metrics, Subscribers subscribers) {
    super(ctx);
    this.livenessLock = livenessLock;
    this.timers = timers;
    this.db = db;
    this.pingChannel = "studio.ping." + replicaId;
    this.settings = settings;
    this.status = status;
    this.metrics = metrics;
    this.subscribers = subscribers;
    this.jdbc = ctx.getSystem().dispatchers().lookup(DispatcherSelector.fromConfig(StudioSettings.DB_DISPATCHER));
    this.backoff = settings.reconnectMinBackoff();
    ctx.getSelf().tell(new Connect());
    timers.startTimerWithFixedDelay(new Tick(), settings.pingInterval());
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Connect.class, c -> connect())
        .onMessage(Connected.class, this::onConnected)
        .onMessage(ConnectFailed.class, this::onConnectFailed)
        .onMessage(ReaderStopped.class, this::onReaderStopped)
        .onMessage(Tick.class, t -> tick())
        .onSignal(PostStop.class, s -> {
          abort(connection);
          return this;
        })
        .build();
  }

  private Behavior<Command> connect() {
    getContext().pipeToSelf(CompletableFuture.supplyAsync(this::open, jdbc),
        (c, failure) -> failure == null ? c : new ConnectFailed(failure));
    return this;
  }

  /** Runs on the JDBC dispatcher. */
  private Connected open() {
    Database.Target t = db.target();
    String url = settings.url().orElse(t.url());
    Properties p = new Properties();
    if (!t.user().isEmpty()) p.setProperty("user", t.user());
    if (!t.password().isEmpty()) p.setProperty("password", t.password());
    p.setProperty("ApplicationName", "studio-bus");
    p.setProperty("tcpKeepAlive", "true");
    p.setProperty("connectTimeout", "5");
    p.setProperty("loginTimeout", "5");
    Connection c = null;
    try {
      c = DriverManager.getConnection(url, p);
      long offset;
      try (Statement st = c.createStatement()) {
        if (livenessLock != null) {
          try (ResultSet rs = st.executeQuery("SELECT pg_try_advisory_lock(" + livenessLock + ")")) {
            rs.next();
            // still held by our previous session (a half-open connection the server has not noticed yet)
            if (!rs.getBoolean(1)) throw new SQLException("liveness lock still held by an earlier session");
          }
        }
        st.execute("LISTEN " + Notify.CHANNEL);
        st.execute("LISTEN \"" + pingChannel + "\"");
        long before = System.currentTimeMillis();
        try (ResultSet rs = st.executeQuery("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint")) {
          rs.next();
          offset = rs.getLong(1) - (before + System.currentTimeMillis()) / 2;
        }
      }
      setIfSupported(c, "SET client_connection_check_interval = '5s'");
      if (!PushReads.enable(c) && !warnedPushReads) {
        warnedPushReads = true;
        getContext().getLog().warn("pgjdbc internals changed: notifications may be delayed under load (see PushReads)");
      }
      return new Connected(c, offset);
    } catch (SQLException e) {
      abort(c);
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private static void setIfSupported(Connection c, String sql) {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      // older servers lack the setting; TCP keepalives still notice a vanished peer
    }
  }

  private Behavior<Command> onConnected(Connected connected) {
    connection = connected.connection();
    backoff = settings.reconnectMinBackoff();
    status.up(connected.clockOffsetMillis());
    metrics.connected();
    getContext().getLog().info("bus connected (LISTEN {})", Notify.CHANNEL);
    for (BusSubscriber s : subscribers.list) s.onReconnect();
    var self = getContext().getSelf();
    Connection c = connection;
    Thread reader = new Thread(new BusReader(c, pingChannel, subscribers.list, status, metrics, db,
        failure -> self.tell(new ReaderStopped(c, failure))), "studio-bus-reader");
    reader.setDaemon(true);
    reader.start();
    return this;
  }

  private Behavior<Command> onConnectFailed(ConnectFailed failed) {
    getContext().getLog().warn("bus connect failed ({}); retrying in {} ms", failed.cause().getMessage(),
        backoff.toMillis());
    retryLater();
    return this;
  }

  private Behavior<Command> onReaderStopped(ReaderStopped stopped) {
    if (stopped.connection() != connection) return this; // an older connection we already replaced
    getContext().getLog().warn("bus connection lost: {}",
        stopped.cause() == null ? "reader ended" : stopped.cause().getMessage());
    abort(connection);
    connection = null;
    status.down();
    for (BusSubscriber s : subscribers.list) s.onDisconnect();
    retryLater();
    return this;
  }

  private void retryLater() {
    timers.startSingleTimer(new Connect(), backoff);
    backoff = backoff.multipliedBy(2).compareTo(settings.reconnectMaxBackoff()) > 0
        ? settings.reconnectMaxBackoff() : backoff.multipliedBy(2);
  }

  /** Self-ping through the pool; a connection that stops hearing its own pings is dead. */
  private Behavior<Command> tick() {
    if (connection == null) return this;
    if (status.sinceLastPing().compareTo(settings.pingTimeout()) > 0) {
      getContext().getLog().warn("bus heard no self-ping for {} ms; reconnecting", status.sinceLastPing().toMillis());
      abort(connection); // the reader fails and reports ReaderStopped
      return this;
    }
    CompletableFuture.runAsync(() -> {
      try {
        db.withTimeout(settings.pingTimeout(), c -> Database.query(c, "SELECT pg_notify(?, '')", rs -> 1, pingChannel));
      } catch (SQLException e) {
        // the missing ping shows; nothing else to do here
      }
    }, jdbc);
    return this;
  }

  private static void abort(Connection c) {
    if (c == null) return;
    try {
      c.abort(Runnable::run); // closes the socket without waiting for the reader's lock
    } catch (SQLException | RuntimeException e) {
      // already gone
    }
  }
}
