package dev.studio.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import org.opentest4j.AssertionFailedError;

/** Waits for a condition with a deadline; never a fixed sleep standing in for a check. */
public final class Await {
  private Await() {}

  public static <T> T until(String what, Duration deadline, Callable<T> probe, Predicate<T> done) {
    long end = System.nanoTime() + deadline.toNanos();
    T last = null;
    Throwable lastError = null;
    while (System.nanoTime() < end) {
      try {
        last = probe.call();
        if (done.test(last)) return last;
      } catch (Exception e) {
        lastError = e;
      }
      try {
        Thread.sleep(50); // polling interval, not a check
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionFailedError("interrupted waiting for " + what);
      }
    }
    throw new AssertionFailedError("timed out after " + deadline + " waiting for " + what + "; last seen: " + last
        + (lastError == null ? "" : "; last error: " + lastError));
  }

  public static void until(String what, Duration deadline, Callable<Boolean> condition) {
    until(what, deadline, condition, Boolean::booleanValue);
  }
}
