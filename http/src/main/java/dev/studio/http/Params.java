package dev.studio.http;

import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/** Strict parsing of ids, limits and topic names: a bad value is a 400 with the reason, never a 500. */
final class Params {
  static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  static final int MAX_TOPICS = 32;
  private static final Pattern ID = Pattern.compile("[0-9]{1,18}");

  private Params() {}

  static String topic(String raw) {
    if (raw == null || !TOPIC.matcher(raw).matches()) {
      throw new IllegalArgumentException("invalid topic name: letters, digits, '.', '_' and '-' (at most 64), "
          + "starting with a letter or digit");
    }
    return raw;
  }

  static Set<String> topics(Optional<String> raw) {
    if (raw.isEmpty() || raw.get().isBlank()) throw new IllegalArgumentException("topics is required, e.g. ?topics=a,b");
    Set<String> out = new LinkedHashSet<>();
    for (String t : raw.get().split(",", -1)) out.add(topic(t.trim()));
    if (out.size() > MAX_TOPICS) throw new IllegalArgumentException("at most " + MAX_TOPICS + " topics per stream");
    return out;
  }

  /** A non-negative id, or empty if absent; {@code null} marks a value that is present but unreadable. */
  static Optional<Long> id(Optional<String> raw) {
    if (raw.isEmpty()) return Optional.empty();
    String s = raw.get().trim();
    return ID.matcher(s).matches() ? Optional.of(Long.parseLong(s)) : null;
  }

  static long after(Optional<String> raw) {
    Optional<Long> id = id(raw);
    if (id == null) throw new IllegalArgumentException("after must be a non-negative integer id");
    return id.orElse(0L);
  }

  static int limit(Optional<String> raw, int def, int max) {
    if (raw.isEmpty()) return def;
    try {
      int n = Integer.parseInt(raw.get().trim());
      if (n < 1 || n > max) throw new NumberFormatException();
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("limit must be an integer from 1 to " + max);
    }
  }
}
