package dev.studio.broker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Resolves a password reference ({@code env:NAME} or {@code file:/path}) at the moment of use. */
public final class PasswordRef {
  private PasswordRef() {}

  public static String resolve(String ref) throws IOException {
    if (ref.startsWith("env:")) {
      String v = System.getenv(ref.substring(4));
      if (v == null) throw new IOException("password reference " + ref + ": variable not set");
      return v;
    }
    if (ref.startsWith("file:")) return Files.readString(Path.of(ref.substring(5))).strip();
    throw new IOException("unsupported password reference (use env:NAME or file:/path)");
  }
}
