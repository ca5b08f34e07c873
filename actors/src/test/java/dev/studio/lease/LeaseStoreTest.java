package dev.studio.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.studio.cluster.ClusterSpec;
import dev.studio.cluster.ClusterStore;
import dev.studio.db.Database;
import dev.studio.testing.MigratedDatabase;
import dev.studio.testing.TestPostgres;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class LeaseStoreTest {
  @RegisterExtension static final TestPostgres pg = TestPostgres.shared();
  private Database db;
  private UUID cluster;

  @BeforeEach
  void setUp() throws Exception {
    db = MigratedDatabase.open(pg);
    cluster = new ClusterStore(db).create(ClusterSpec.from(new ObjectMapper().readTree(
        "{\"name\":\"c\",\"managementUrl\":\"http://127.0.0.1:1\",\"username\":\"u\",\"passwordRef\":\"env:X\"}"))).id();
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  private Map<UUID, Long> acquire(LeaseStore s) throws Exception {
    return db.withConnection(c -> s.acquire(c, List.of(cluster)));
  }

  @Test
  void aReplicaThatLostItsLeaseTakesItAgainWithANewToken() throws Exception {
    LeaseStore a = new LeaseStore(db, "a", Duration.ofSeconds(15), Duration.ofSeconds(15));
    long first = acquire(a).get(cluster);
    // a bus outage made A drop the lease in memory; the row still names A, unexpired
    long again = acquire(a).get(cluster);
    assertEquals(first + 1, again, "re-acquired, fencing out the old generation");
    // and once expired, too
    db.update("UPDATE cluster_lease SET expires_at = now() - interval '1 second'");
    assertEquals(again + 1, acquire(a).get(cluster));
    assertEquals(Map.of(cluster, again + 1), db.withConnection(c -> a.renew(c, Map.of(cluster, again + 1))));
  }

  @Test
  void aLiveHoldersUnexpiredLeaseIsNotTakenButAReleasedOneIs() throws Exception {
    LeaseStore a = new LeaseStore(db, "a", Duration.ofSeconds(15), Duration.ofSeconds(15));
    LeaseStore b = new LeaseStore(db, "b", Duration.ofSeconds(15), Duration.ofSeconds(15));
    long token = acquire(a).get(cluster);
    // "a" is not a live replica (no row, no lock): B may take it; make "a" look live first
    db.update("INSERT INTO studio_replica (id, host, version, state, lock_key) VALUES ('a', 'h', '0', 'ready', 42)");
    try (var holder = pg.connect(); var st = holder.createStatement()) {
      st.execute("SELECT pg_advisory_lock(42)"); // a's liveness lock, as its bus would hold it
      assertTrue(acquire(b).isEmpty(), "a live holder keeps its unexpired lease");
      db.withConnection(c -> a.release(c, Map.of(cluster, token)));
      assertEquals(token + 1, acquire(b).get(cluster), "a released lease is taken at once, token + 1");
    }
  }
}
