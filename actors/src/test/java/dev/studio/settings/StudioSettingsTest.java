package dev.studio.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StudioSettingsTest {

  @Test
  void defaultsFollowTheDesign() {
    StudioSettings s = StudioSettings.from(ConfigFactory.load());
    assertEquals(Duration.ofSeconds(5), s.replica().heartbeatInterval());
    assertEquals(Duration.ofSeconds(15), s.replica().goneAfter());
    assertEquals(Duration.ofSeconds(5), s.lease().renewInterval());
    assertEquals(Duration.ofSeconds(15), s.lease().ttl());
    assertEquals(Duration.ofSeconds(10), s.lease().lostAfter());
    assertEquals(Duration.ofSeconds(2), s.readiness().timeout());
    assertEquals(Duration.ofSeconds(1), s.readiness().cacheTtl());
    assertEquals(Duration.ofSeconds(10), s.bus().downUnreadyAfter());
    assertEquals(1000, s.stream().replayCap());
    assertEquals(Duration.ofHours(24), s.stream().retention());
    assertEquals(Duration.ofSeconds(5), s.drain().lbGrace());
    assertEquals(Duration.ofSeconds(20), s.drain().runGrace());
    assertEquals(8080, s.http().port());
    assertFalse(s.replica().id().isBlank(), "a replica id is generated when none is configured");
  }

  @Test
  void overridesWinAndUrlSelectsExternalDatabase() {
    var c = ConfigFactory.parseMap(Map.of(
            "studio.db.url", "jdbc:postgresql://127.0.0.1:5432/studio",
            "studio.replica.id", "replica-7",
            "studio.http.port", "9000"))
        .withFallback(ConfigFactory.load());
    StudioSettings s = StudioSettings.from(c);
    assertTrue(s.db().url().isPresent());
    assertEquals("replica-7", s.replica().id());
    assertEquals(9000, s.http().port());
  }

  @Test
  void inconsistentLeaseTimingsAreRefusedWithTheKeyNamed() {
    var c = ConfigFactory.parseMap(Map.of("studio.lease.lost-after", "20s")).withFallback(ConfigFactory.load());
    var e = assertThrows(IllegalArgumentException.class, () -> StudioSettings.from(c));
    assertTrue(e.getMessage().contains("studio.lease.lost-after"), e.getMessage());
  }
}
