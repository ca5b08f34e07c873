package dev.studio.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.UUID;

/** A bulk run as stored and as the API shows it. */
public record RunView(UUID id, String kind, UUID clusterId, String replicaId, String state, int done, Integer total,
    String currentItem, boolean stopRequested, String error, JsonNode params, JsonNode result, Instant createdAt,
    Instant updatedAt, Instant finishedAt) {

  public boolean active() {
    return state.equals("running") || state.equals("stopping");
  }
}
