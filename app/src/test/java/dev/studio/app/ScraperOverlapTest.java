package dev.studio.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.studio.testing.FakeRabbit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The soak's double-scrape checker can tell a handover from two owners at once. */
class ScraperOverlapTest {
  private static List<FakeRabbit.Request> log(String... callers) {
    List<FakeRabbit.Request> out = new ArrayList<>();
    for (int i = 0; i < callers.length; i++) out.add(new FakeRabbit.Request("c", callers[i], "GET", "overview", i));
    return out;
  }

  @Test
  void handoversAndHandBacksAreOneOwnerAtATime() {
    assertEquals(1, ChaosSoakIT.maxSimultaneousScrapers(log("a", "a", "b", "b", "b")));
    assertEquals(1, ChaosSoakIT.maxSimultaneousScrapers(log("a", "a", "j", "j", "a", "a")));
  }

  @Test
  void alternationIsTwoOwnersAtOnce() {
    assertEquals(2, ChaosSoakIT.maxSimultaneousScrapers(log("a", "b", "a", "b")));
    assertEquals(2, ChaosSoakIT.maxSimultaneousScrapers(log("a", "a", "b", "a", "a", "b", "b")));
  }
}
