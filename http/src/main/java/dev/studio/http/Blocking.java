package dev.studio.http;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/** JDBC calls from routes: always on the database dispatcher, never on pekko-http's threads. */
final class Blocking {
  interface Sql<T> {
    T get() throws Exception;
  }

  private Blocking() {}

  /** Runs {@code call} on the JDBC dispatcher {@code jdbc}. */
  static <T> CompletableFuture<T> async(Executor jdbc, Sql<T> call) {
    return CompletableFuture.supplyAsync(() -> sql(call), jdbc);
  }

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
