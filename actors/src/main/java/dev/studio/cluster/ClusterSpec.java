package dev.studio.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What an operator sends to create or replace a cluster, validated: every problem is reported at
 * once, by field, so a client can fix its request in one go.
 */
public record ClusterSpec(String name, String managementUrl, String username, String passwordRef, JsonNode settings) {
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  static final Pattern ENV_REF = Pattern.compile("env:[A-Za-z_][A-Za-z0-9_]{0,127}");
  static final Pattern FILE_REF = Pattern.compile("file:/[^\\u0000-\\u001f]{1,1023}");

  /** Invalid input, with one message per field. */
  public static final class Invalid extends IllegalArgumentException {
    private final List<String> problems;

    Invalid(List<String> problems) {
      super(String.join("; ", problems));
      this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
      return problems;
    }
  }

  public static ClusterSpec from(JsonNode body) {
    if (body == null || !body.isObject()) throw new Invalid(List.of("the body must be a JSON object"));
    List<String> problems = new ArrayList<>();
    String name = text(body, "name", problems);
    String url = text(body, "managementUrl", problems);
    String user = text(body, "username", problems);
    String ref = text(body, "passwordRef", problems);
    JsonNode settings = body.has("settings") ? body.get("settings") : JsonNodeFactory.instance.objectNode();
    if (name != null && !NAME.matcher(name).matches()) {
      problems.add("name: letters, digits, '.', '_' and '-', at most 64, starting with a letter or digit");
    }
    if (url != null && !validUrl(url)) problems.add("managementUrl: an absolute http or https URL, at most 2048 characters");
    if (user != null && (user.isEmpty() || user.length() > 128 || user.chars().anyMatch(Character::isISOControl))) {
      problems.add("username: 1 to 128 characters, no control characters");
    }
    if (ref != null && !ENV_REF.matcher(ref).matches() && !FILE_REF.matcher(ref).matches()) {
      problems.add("passwordRef: env:VARIABLE_NAME or file:/absolute/path (the password itself is never stored)");
    }
    if (!settings.isObject()) problems.add("settings: a JSON object");
    if (!problems.isEmpty()) throw new Invalid(problems);
    return new ClusterSpec(name, url.replaceAll("/+$", ""), user, ref, settings);
  }

  private static String text(JsonNode body, String field, List<String> problems) {
    JsonNode n = body.get(field);
    if (n == null || n.isNull()) {
      problems.add(field + ": required");
      return null;
    }
    if (!n.isTextual()) {
      problems.add(field + ": must be a string");
      return null;
    }
    return n.asText();
  }

  private static boolean validUrl(String s) {
    if (s.length() > 2048) return false;
    try {
      URI u = new URI(s);
      return u.isAbsolute() && ("http".equals(u.getScheme()) || "https".equals(u.getScheme())) && u.getHost() != null;
    } catch (Exception e) {
      return false;
    }
  }
}
