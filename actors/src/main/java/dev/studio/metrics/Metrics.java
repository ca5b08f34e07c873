package dev.studio.metrics;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** The process's one meter registry, scraped at {@code /metrics}. */
public final class Metrics {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final ActorMetrics actors = new ActorMetrics(registry);

  public Metrics(String replicaId) {
    // common tags first: a filter added later does not reach meters already registered
    registry.config().commonTags("replica", replicaId);
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public ActorMetrics actors() {
    return actors;
  }

  /** The Prometheus text exposition. */
  public String scrape() {
    return registry.scrape();
  }
}
