package dev.studio.replica;

import java.util.Locale;

/** A replica's life: {@code starting → ready → draining → stopped}. */
public enum ReplicaState {
  STARTING, READY, DRAINING, STOPPED;

  public String sql() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static ReplicaState fromSql(String s) {
    return valueOf(s.toUpperCase(Locale.ROOT));
  }
}
