package dev.studio.lease;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.UUID;

/**
 * Rendezvous (highest random weight) placement: a cluster's owner is the live replica with the
 * highest {@code hash(cluster, replica)}. Every replica computes the same answer from the same live
 * set, and a replica joining or leaving moves only the clusters it wins or held (about 1/N).
 */
public final class Rendezvous {
  private Rendezvous() {}

  public static String owner(UUID cluster, Collection<String> live) {
    String best = null;
    long bestWeight = 0;
    for (String replica : live) {
      long w = weight(cluster, replica);
      if (best == null || Long.compareUnsigned(w, bestWeight) > 0
          || (w == bestWeight && replica.compareTo(best) > 0)) {
        best = replica;
        bestWeight = w;
      }
    }
    return best;
  }

  /** FNV-1a over both ids, finished with the SplitMix64 mixer for avalanche. */
  static long weight(UUID cluster, String replica) {
    long h = 0xcbf29ce484222325L;
    h = mix(h, cluster.getMostSignificantBits());
    h = mix(h, cluster.getLeastSignificantBits());
    for (byte b : replica.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    h += 0x9e3779b97f4a7c15L;
    h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
    h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
    return h ^ (h >>> 31);
  }

  private static long mix(long h, long v) {
    for (int i = 0; i < 8; i++) {
      h ^= (v >>> (i * 8)) & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }
}
