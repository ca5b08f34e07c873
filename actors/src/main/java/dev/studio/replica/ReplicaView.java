package dev.studio.replica;

import java.time.Instant;

/**
 * One row of the replica list. {@code ended} is {@code "clean"} for a recorded stop, {@code
 * "crash"} for a replica gone (heartbeat too old) without one, and null while it lives.
 */
public record ReplicaView(String id, String host, String version, String state, boolean safeMode,
    long heartbeatAgeMs, Instant startedAt, Instant stoppedAt, String ended) {}
