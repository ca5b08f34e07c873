package dev.studio.cache;

import dev.studio.bus.BusMessage;
import dev.studio.bus.BusSubscriber;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A read cache for one kind of data, keyed by {@code (kind, key)}, that every replica invalidates on
 * a bus {@code signal} of its kind ({@code key} {@code "*"} invalidates all) and clears when the bus
 * reconnects. A change made through any replica sends the signal in its own transaction, so another
 * replica never serves the old value after the change's notification arrived. Entries also expire
 * after {@code ttl}.
 */
public final class SignalCache<V> implements BusSubscriber {
  private record Entry<V>(V value, long loadedAtNanos) {}

  private final String kind;
  private final Duration ttl;
  private final ConcurrentMap<String, Entry<V>> entries = new ConcurrentHashMap<>();
  /** Bumped by every invalidation; a load that raced one is not stored. */
  private final AtomicLong generation = new AtomicLong();

  public SignalCache(String kind, Duration ttl) {
    this.kind = kind;
    this.ttl = ttl;
  }

  public String kind() {
    return kind;
  }

  public V get(String key, Callable<V> loader) throws Exception {
    Entry<V> e = entries.get(key);
    if (e != null && System.nanoTime() - e.loadedAtNanos() < ttl.toNanos()) return e.value();
    long gen = generation.get();
    long loadedAt = System.nanoTime();
    V value = loader.call();
    if (generation.get() == gen) entries.put(key, new Entry<>(value, loadedAt));
    return value;
  }

  public void invalidate(String key) {
    generation.incrementAndGet();
    if ("*".equals(key)) {
      entries.clear();
    } else {
      entries.remove(key);
    }
  }

  @Override
  public void onMessage(BusMessage message) {
    if (message instanceof BusMessage.Signal s && s.kind().equals(kind)) invalidate(s.key());
  }

  @Override
  public void onReconnect() {
    invalidate("*");
  }
}
