package dev.studio.bus;

/**
 * Receives every bus message, in arrival order, on the bus's reader thread: implementations hand
 * work on and return at once.
 */
public interface BusSubscriber {
  void onMessage(BusMessage message);

  /**
   * The LISTEN connection was (re)established: notifications sent while it was down are lost, so
   * caches clear themselves and stream clients are told to resync.
   */
  default void onReconnect() {}

  /** The LISTEN connection (and with it this replica's liveness lock) is gone. */
  default void onDisconnect() {}
}
