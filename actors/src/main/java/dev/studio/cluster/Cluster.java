package dev.studio.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.UUID;

/** A registered broker cluster. {@code passwordRef} names where the password lives; it is never echoed. */
public record Cluster(UUID id, String name, String managementUrl, String username, String passwordRef,
    JsonNode settings, Instant createdAt, Instant updatedAt) {}
