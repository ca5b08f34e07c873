package dev.studio.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RendezvousTest {
  private static List<UUID> clusters(int n) {
    List<UUID> out = new ArrayList<>();
    for (int i = 0; i < n; i++) out.add(UUID.nameUUIDFromBytes(("cluster-" + i).getBytes()));
    return out;
  }

  @Test
  void spreadsClustersEvenlyAndEveryReplicaAgrees() {
    List<String> live = List.of("r1", "r2", "r3", "r4");
    Map<String, Integer> counts = new HashMap<>();
    for (UUID c : clusters(10_000)) {
      String owner = Rendezvous.owner(c, live);
      assertEquals(owner, Rendezvous.owner(c, List.of("r4", "r2", "r1", "r3")), "order of the live set does not matter");
      counts.merge(owner, 1, Integer::sum);
    }
    for (int n : counts.values()) assertTrue(Math.abs(n - 2500) < 250, "balanced within 10%: " + counts);
  }

  @Test
  void aJoiningReplicaMovesOnlyAboutOneOverNPlusOne() {
    for (int n = 2; n <= 5; n++) {
      List<String> before = new ArrayList<>();
      for (int i = 0; i < n; i++) before.add("replica-" + i);
      List<String> after = new ArrayList<>(before);
      after.add("replica-new");
      int moved = 0;
      int total = 10_000;
      for (UUID c : clusters(total)) {
        String was = Rendezvous.owner(c, before);
        String is = Rendezvous.owner(c, after);
        if (!was.equals(is)) {
          moved++;
          assertEquals("replica-new", is, "a cluster only ever moves to the joiner");
        }
      }
      double ideal = 1.0 / (n + 1);
      double fraction = moved / (double) total;
      assertTrue(fraction <= 1.1 * ideal && fraction >= 0.9 * ideal, n + " -> " + (n + 1) + ": moved " + fraction + " vs " + ideal);
    }
  }

  @Test
  void noLiveReplicaNoOwner() {
    assertEquals(null, Rendezvous.owner(UUID.randomUUID(), List.of()));
  }
}
