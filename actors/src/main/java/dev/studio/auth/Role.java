package dev.studio.auth;

import java.util.Locale;

/** What a token may do; each role includes the ones below it. */
public enum Role {
  /** Reads everything but tokens and the audit log; opens streams. */
  VIEWER,
  /** Also starts and stops runs and changes clusters. */
  OPERATOR,
  /** Also manages tokens, publishes announcements and reads the audit log. */
  ADMIN;

  public boolean covers(Role needed) {
    return compareTo(needed) >= 0;
  }

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The role named {@code raw} ({@code viewer}, {@code operator}, {@code admin}). */
  public static Role parse(String raw) {
    if (raw != null) {
      for (Role r : values()) {
        if (r.wire().equals(raw)) return r;
      }
    }
    throw new IllegalArgumentException("role must be one of viewer, operator, admin");
  }
}
