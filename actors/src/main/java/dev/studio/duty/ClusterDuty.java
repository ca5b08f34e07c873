package dev.studio.duty;

import org.apache.pekko.actor.typed.Behavior;

/**
 * A timed job that runs for one broker cluster, only on the replica that owns the cluster's lease:
 * the extension point for per-cluster work. Write one class, list its name (or class name) in
 * {@code studio.duties}, and the framework runs it: it starts the duty when the lease is won and
 * stops it when the lease is lost or released, restarts it with backoff when it fails, counts its
 * messages, and fences its writes. See README, "Writing a duty".
 */
public interface ClusterDuty {
  /** The name used in {@code studio.duties} and in metrics and actor names. */
  String name();

  /** Built-in duties keep running in safe mode (after a crash loop); extensions do not. */
  default boolean builtIn() {
    return false;
  }

  Behavior<?> create(ClusterContext context);
}
