package dev.studio.http;

import java.sql.SQLException;
import java.util.concurrent.CompletionException;

/** Lets a JDBC call run inside a {@code supplyAsync} on the database dispatcher. */
final class Blocking {
  interface Sql<T> {
    T get() throws SQLException;
  }

  private Blocking() {}

  static <T> T sql(Sql<T> call) {
    try {
      return call.get();
    } catch (SQLException e) {
      throw new CompletionException(e);
    }
  }
}
