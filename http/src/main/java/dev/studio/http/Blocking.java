package dev.studio.http;

import java.util.concurrent.CompletionException;

/** Lets a JDBC call run inside a {@code supplyAsync} on the database dispatcher. */
final class Blocking {
  interface Sql<T> {
    T get() throws Exception;
  }

  private Blocking() {}

  static <T> T sql(Sql<T> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new CompletionException(e);
    }
  }
}
