package dev.studio.replica;

import dev.studio.settings.StudioSettings;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts this host's recent crashes (replicas gone without a recorded stop, not boots) and, past
 * the threshold, starts the replica in safe mode: only built-in duties run, so a faulty extension
 * cannot keep a replica crash-looping. It resets by itself once the crashes leave the window.
 *
 * <p>A crash is counted once its heartbeat is older than {@code gone-after}, so a process that
 * restarts at once sees its last crash one boot later; a real crash loop (with the backoff every
 * supervisor applies) is still caught within a few boots.
 */
public final class CrashLoopGuard {
  private static final Logger log = LoggerFactory.getLogger(CrashLoopGuard.class);

  private CrashLoopGuard() {}

  public static boolean safeMode(ReplicaStore store, StudioSettings.Replica settings) throws SQLException {
    int crashes = store.recentCrashes(settings.host(), settings.crashLoopWindow(), settings.goneAfter());
    boolean safe = crashes >= settings.crashLoopThreshold();
    if (safe) {
      log.warn("SAFE MODE: {} crashes of host {} within {}; extension duties stay off until it calms down",
          crashes, settings.host(), settings.crashLoopWindow());
    } else if (crashes > 0) {
      log.info("{} recent crash(es) of host {} (safe mode at {})", crashes, settings.host(),
          settings.crashLoopThreshold());
    }
    return safe;
  }
}
