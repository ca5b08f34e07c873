package dev.studio.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BusCodecTest {

  /** What the sending SQL appends. */
  private static String close(String prefix) {
    return prefix + ",\"ts\":1733140000000}";
  }

  @Test
  void signalAndEventsRoundTripWithTheirSendTime() {
    var s = BusCodec.decode(close(BusCodec.signalPrefix("replicas", "*"))).orElseThrow();
    assertEquals(new BusMessage.Signal("replicas", "*"), s.message());
    assertEquals(1733140000000L, s.sentAtMillis());
    var e = BusCodec.decode(close(BusCodec.eventsPrefix(List.of(7L, 8L, 9L)))).orElseThrow();
    assertEquals(new BusMessage.Events(List.of(7L, 8L, 9L)), e.message());
  }

  @Test
  void framesTravelAsStoredTextAndPackUnderTheLimit() {
    List<BusMessage.Frame> frames = new ArrayList<>();
    for (int i = 1; i <= 300; i++) {
      frames.add(new BusMessage.Frame("t", i, "{\"n\":" + i + ",\"s\":\"a \\\"quoted\\\" üüüü € 😀\"}"));
    }
    List<String> prefixes = BusCodec.framePrefixes(frames);
    assertTrue(prefixes.size() >= 2, "300 frames do not fit one notification");
    List<BusMessage.Frame> back = new ArrayList<>();
    for (String p : prefixes) {
      String payload = close(p);
      assertTrue(payload.getBytes(java.nio.charset.StandardCharsets.UTF_8).length < 8000, "payload within PostgreSQL's cap");
      back.addAll(((BusMessage.Frames) BusCodec.decode(payload).orElseThrow().message()).frames());
    }
    assertEquals(frames, back, "every frame, in order, with its data byte for byte");
  }

  @Test
  void aFrameTooLargeToTravelGoesWithoutItsData() {
    String big = "{\"x\":\"" + "y".repeat(20_000) + "\"}";
    var small = new BusMessage.Frame("t", 1, "{}");
    var large = new BusMessage.Frame("t", 2, big);
    List<String> prefixes = BusCodec.framePrefixes(List.of(small, large, small.withData("{\"a\":1}")));
    List<BusMessage.Frame> back = new ArrayList<>();
    for (String p : prefixes) back.addAll(((BusMessage.Frames) BusCodec.decode(close(p)).orElseThrow().message()).frames());
    assertEquals(3, back.size());
    assertEquals("{}", back.get(0).data());
    assertEquals(2, back.get(1).id());
    assertNull(back.get(1).data(), "cut: the receiver loads it by id");
    assertEquals("{\"a\":1}", back.get(2).data());
  }

  @Test
  void designsSingleFrameFormIsReadToo() {
    var m = BusCodec.decode("{\"t\":\"frame\",\"topic\":\"x\",\"id\":5,\"data\":{\"k\":true}}").orElseThrow();
    assertEquals(List.of(new BusMessage.Frame("x", 5, "{\"k\":true}")), ((BusMessage.Frames) m.message()).frames());
  }

  @Test
  void malformedOrUnknownPayloadsAreRejectedNotThrown() {
    for (String bad : new String[] {"", "not json", "[]", "{}", "{\"t\":\"mystery\"}", "{\"t\":\"signal\",\"kind\":1}",
        "{\"t\":\"events\",\"seqs\":[\"x\"]}", "{\"t\":\"frame\",\"f\":[{\"id\":1}]}", "{\"t\":\"frame\",\"f\":3}",
        "{\"t\":\"dev.studio.SomeJavaType\"}"}) {
      assertFalse(BusCodec.decode(bad).isPresent(), bad);
    }
  }

  @Test
  void canonicalObjectIsCompactAndRefusesNonObjects() {
    assertEquals("{\"a\":[1,2],\"b\":{\"c\":null}}", BusCodec.canonicalObject("{ \"a\" : [1, 2], \"b\": {\"c\": null} }"));
    for (String bad : new String[] {"[1]", "3", "\"s\"", "{", "null"}) {
      try {
        BusCodec.canonicalObject(bad);
        throw new AssertionError("accepted " + bad);
      } catch (IllegalArgumentException expected) {
        assertTrue(expected.getMessage().length() > 0);
      }
    }
  }
}
