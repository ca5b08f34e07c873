package dev.studio.bus;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The bus's JSON wire format. Three shapes, told apart by {@code t}:
 *
 * <pre>
 * {"t":"frame","f":[{"topic":"runs","id":42,"data":"{…}"}, {"topic":"runs","id":43}], "ts":…}
 * {"t":"events","seqs":[7,8,9],"ts":…}
 * {"t":"signal","kind":"replicas","key":"*","ts":…}
 * </pre>
 *
 * A frame batch carries as many frames as fit under {@link #MAX_PAYLOAD} bytes; a frame without
 * {@code data} is loaded by id by the receiver; {@code data} travels as a JSON string holding the
 * stored text, so live and replayed frames are the same bytes. DESIGN's single-frame form {@code
 * {"t":"frame","topic","id","data"}} is read too. {@code ts} is the sender's database clock
 * ({@code clock_timestamp()} in ms), added by the sending SQL, for the delivery-lag metric.
 */
public final class BusCodec {
  /** PostgreSQL caps a payload at 8,000 bytes; the rest is headroom for the envelope and ts. */
  public static final int MAX_PAYLOAD = 7_500;

  static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

  private BusCodec() {}

  /** A decoded notification and its sender's database time (0 when absent). */
  public record Decoded(BusMessage message, long sentAtMillis) {}

  /**
   * Payload prefixes: the sending SQL appends the database clock and the closing brace, so every
   * payload ends in {@code ,"ts":<ms>}}.
   */
  public static String signalPrefix(String kind, String key) {
    return write(g -> {
      g.writeStringField("t", "signal");
      g.writeStringField("kind", kind);
      g.writeStringField("key", key);
    });
  }

  public static String eventsPrefix(List<Long> seqs) {
    return write(g -> {
      g.writeStringField("t", "events");
      g.writeArrayFieldStart("seqs");
      for (long s : seqs) g.writeNumber(s);
      g.writeEndArray();
    });
  }

  /**
   * Packs frames into as few payload prefixes as fit {@link #MAX_PAYLOAD}, in id order. A frame too
   * large to travel even alone goes without its data.
   */
  public static List<String> framePrefixes(List<BusMessage.Frame> frames) {
    List<String> out = new ArrayList<>();
    StringBuilder batch = null;
    int batchBytes = 0;
    for (BusMessage.Frame f : frames) {
      String item = frameItem(f, true);
      int itemBytes = utf8Length(item);
      if (HEAD.length() + itemBytes + TAIL_ROOM > MAX_PAYLOAD) {
        item = frameItem(f, false);
        itemBytes = utf8Length(item);
      }
      if (batch != null && batchBytes + 1 + itemBytes + TAIL_ROOM > MAX_PAYLOAD) {
        out.add(batch.append(']').toString());
        batch = null;
      }
      if (batch == null) {
        batch = new StringBuilder(HEAD).append(item);
        batchBytes = HEAD.length() + itemBytes;
      } else {
        batch.append(',').append(item);
        batchBytes += 1 + itemBytes;
      }
    }
    if (batch != null) out.add(batch.append(']').toString());
    return out;
  }

  private static final String HEAD = "{\"t\":\"frame\",\"f\":[";
  /** Room for {@code ]} and {@code ,"ts":1733140000000}}. */
  private static final int TAIL_ROOM = 32;

  /** PostgreSQL's cap is in bytes, and a frame may hold any Unicode text. */
  static int utf8Length(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n++;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c)) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }

  private static String frameItem(BusMessage.Frame f, boolean withData) {
    StringWriter w = new StringWriter();
    try (JsonGenerator g = JSON.getFactory().createGenerator(w)) {
      g.writeStartObject();
      g.writeStringField("topic", f.topic());
      g.writeNumberField("id", f.id());
      if (withData) {
        // as a string: the receiver gets the stored text back byte for byte, not a re-serialization
        g.writeStringField("data", f.data());
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return w.toString();
  }

  private interface Fields {
    void write(JsonGenerator g) throws IOException;
  }

  /** An object with the given fields, left open for the sender's {@code ,"ts":…}}. */
  private static String write(Fields fields) {
    StringWriter w = new StringWriter();
    try (JsonGenerator g = JSON.getFactory().createGenerator(w)) {
      g.writeStartObject();
      fields.write(g);
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String s = w.toString();
    return s.substring(0, s.length() - 1);
  }

  /** Decodes a payload; empty for anything malformed or of an unknown shape (the caller counts it). */
  public static Optional<Decoded> decode(String payload) {
    try {
      JsonNode n = JSON.readTree(payload);
      if (n == null || !n.isObject() || !n.path("t").isTextual()) return Optional.empty();
      long ts = n.path("ts").asLong(0);
      BusMessage m = switch (n.get("t").asText()) {
        case "frame" -> frames(n);
        case "events" -> events(n);
        case "signal" -> signal(n);
        default -> null;
      };
      return m == null ? Optional.empty() : Optional.of(new Decoded(m, ts));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static BusMessage frames(JsonNode n) {
    List<BusMessage.Frame> frames = new ArrayList<>();
    if (n.has("f")) {
      if (!n.get("f").isArray()) return null;
      for (JsonNode f : n.get("f")) {
        BusMessage.Frame one = frame(f);
        if (one == null) return null;
        frames.add(one);
      }
    } else {
      BusMessage.Frame one = frame(n);
      if (one == null) return null;
      frames.add(one);
    }
    return new BusMessage.Frames(List.copyOf(frames));
  }

  private static BusMessage.Frame frame(JsonNode f) {
    if (!f.path("topic").isTextual() || !f.path("id").canConvertToLong()) return null;
    JsonNode data = f.get("data");
    String text = data == null || data.isNull() ? null : data.isTextual() ? data.asText() : data.toString();
    return new BusMessage.Frame(f.get("topic").asText(), f.get("id").asLong(), text);
  }

  private static BusMessage events(JsonNode n) {
    if (!n.path("seqs").isArray()) return null;
    List<Long> seqs = new ArrayList<>();
    for (JsonNode s : n.get("seqs")) {
      if (!s.canConvertToLong()) return null;
      seqs.add(s.asLong());
    }
    return new BusMessage.Events(List.copyOf(seqs));
  }

  private static BusMessage signal(JsonNode n) {
    if (!n.path("kind").isTextual() || !n.path("key").isTextual()) return null;
    return new BusMessage.Signal(n.get("kind").asText(), n.get("key").asText());
  }

  /** Compact canonical JSON of an object, as stored and as every subscriber sees it. */
  public static String canonicalObject(String json) {
    try {
      JsonNode n = JSON.readTree(json);
      if (n == null || !n.isObject()) throw new IllegalArgumentException("a frame's data must be a JSON object");
      return JSON.writeValueAsString(n);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("not valid JSON: " + e.getOriginalMessage());
    }
  }
}
