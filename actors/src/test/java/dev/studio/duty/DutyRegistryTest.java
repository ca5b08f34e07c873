package dev.studio.duty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class DutyRegistryTest {
  private final ClassLoader loader = getClass().getClassLoader();

  @Test
  void namesComeFromServiceLoaderOrClassNames() {
    DutyRegistry r = DutyRegistry.load(List.of("scrape-tier-a", "scrape-tier-b", "dev.studio.duty.example.LargeQueueAlarm"), loader);
    assertEquals(List.of("scrape-tier-a", "scrape-tier-b", "large-queue-alarm"), r.names());
  }

  @Test
  void safeModeRunsOnlyBuiltInDuties() {
    DutyRegistry r = DutyRegistry.load(List.of("scrape-tier-a", "dev.studio.duty.example.LargeQueueAlarm"), loader);
    assertEquals(List.of("scrape-tier-a"), r.forMode(true).stream().map(ClusterDuty::name).toList());
    assertEquals(2, r.forMode(false).size());
  }

  @Test
  void anUnknownDutyIsRefusedWithTheSettingNamed() {
    var e = assertThrows(IllegalArgumentException.class, () -> DutyRegistry.load(List.of("no-such-duty"), loader));
    assertTrue(e.getMessage().contains("studio.duties") && e.getMessage().contains("no-such-duty"), e.getMessage());
  }
}
