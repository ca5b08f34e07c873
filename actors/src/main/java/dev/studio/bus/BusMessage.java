package dev.studio.bus;

import java.util.List;

/**
 * What travels on the {@code studio} channel. The wire form (see {@link BusCodec}) is JSON with a
 * short type tag and never names a Java type.
 */
public sealed interface BusMessage {

  /**
   * Stream frames in id order. A frame whose data would not fit a notification arrives with {@code
   * data == null}; the bus loads it from {@code stream_frame} before handing it on, so subscribers
   * always see whole frames.
   */
  record Frames(List<Frame> frames) implements BusMessage {}

  /** {@code data} is the frame's JSON text exactly as stored, or null while not yet loaded. */
  record Frame(String topic, long id, String data) {
    public Frame withData(String loaded) {
      return new Frame(topic, id, loaded);
    }
  }

  /** New {@code broker_event} rows; receivers load them by seq. */
  record Events(List<Long> seqs) implements BusMessage {}

  /** Invalidates a cache entry ({@code key} {@code "*"}: the whole kind) or wakes a component. */
  record Signal(String kind, String key) implements BusMessage {}
}
