package dev.studio.app;

import sun.misc.Signal;

/**
 * SIGTERM and SIGINT start the drain instead of the JVM's default exit, so a replica that drained
 * cleanly exits 0 (the JVM's own handling would exit 143 from inside a shutdown hook).
 */
final class Signals {
  private Signals() {}

  /** The reason recorded in CoordinatedShutdown's log. */
  static final org.apache.pekko.actor.CoordinatedShutdown.Reason SIGNAL = new org.apache.pekko.actor.CoordinatedShutdown.Reason() {
    @Override
    public String toString() {
      return "signal";
    }
  };

  static void onTerminate(Runnable drain) {
    for (String name : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(name), s -> drain.run());
    }
  }
}
