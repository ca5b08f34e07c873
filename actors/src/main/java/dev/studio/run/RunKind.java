package dev.studio.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * A kind of bulk run — the extension point for runs, like {@link dev.studio.duty.ClusterDuty} for
 * duties. A run selects its items once, then acts on one item at a time; the framework stores
 * progress, honours stop requests from any replica before each item, refuses clusters with a bad
 * split-brain verdict, and records the outcome (or {@code interrupted} with the progress on drain).
 */
public interface RunKind {
  String name();

  /** Checks the parameters; throws {@link IllegalArgumentException} with a message for the client. */
  void validate(JsonNode params);

  /** The items this run would touch, in order. */
  List<String> select(RunContext ctx) throws Exception;

  /** Acts on one item. */
  void apply(RunContext ctx, String item) throws Exception;
}
