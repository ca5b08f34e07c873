package dev.studio.auth;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Requests per token on this replica: a token bucket of {@code burst} refilled at {@code perSecond}.
 * Replicas do not share buckets (no database round trip per request), so behind a load balancer the
 * effective limit is replicas x {@code perSecond}.
 */
public final class RateLimits {
  private final long perSecond;
  private final long burst;
  private final ConcurrentHashMap<UUID, Bucket> buckets = new ConcurrentHashMap<>();

  public RateLimits(long perSecond, long burst) {
    this.perSecond = perSecond;
    this.burst = burst;
  }

  /** Zero when the request may go ahead, else how long to wait before the next one would. */
  public Duration take(UUID tokenId) {
    if (perSecond == 0) return Duration.ZERO;
    Bucket bucket = buckets.computeIfAbsent(tokenId, k -> Bucket.builder()
        .addLimit(Bandwidth.builder().capacity(burst).refillGreedy(perSecond, Duration.ofSeconds(1)).build())
        .build());
    ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(1);
    return probe.isConsumed() ? Duration.ZERO : Duration.ofNanos(probe.getNanosToWaitForRefill());
  }
}
