package dev.studio.http;

/** A well-formed request whose content is wrong: answered 422 with {@code title} and the message. */
final class Unprocessable extends IllegalArgumentException {
  final String title;

  Unprocessable(String title, String detail) {
    super(detail);
    this.title = title;
  }
}
