package dev.studio.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.studio.broker.BrokerClient;
import dev.studio.cluster.Cluster;

/** What a run kind works with: the cluster, its broker client, and the run's parameters. */
public record RunContext(Cluster cluster, BrokerClient broker, JsonNode params) {}
