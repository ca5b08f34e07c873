package dev.studio.migrations;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The version of this build, stamped by Maven into {@code build.properties}. */
public record BuildInfo(String version) {

  public static BuildInfo current() {
    try (InputStream in = BuildInfo.class.getResourceAsStream("build.properties")) {
      Properties p = new Properties();
      p.load(in);
      return new BuildInfo(p.getProperty("version"));
    } catch (IOException | NullPointerException e) {
      throw new UncheckedIOException(new IOException("build.properties missing from the classpath", e));
    }
  }

  /** Numeric comparison of dotted versions; a qualifier such as {@code -SNAPSHOT} is ignored. */
  public static int compare(String a, String b) {
    String[] x = a.split("-", 2)[0].split("\\.");
    String[] y = b.split("-", 2)[0].split("\\.");
    for (int i = 0; i < Math.max(x.length, y.length); i++) {
      long p = i < x.length ? Long.parseLong(x[i].trim()) : 0;
      long q = i < y.length ? Long.parseLong(y[i].trim()) : 0;
      if (p != q) return Long.compare(p, q);
    }
    return 0;
  }
}
