package dev.studio.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.studio.testing.Haproxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * No Docker engine or Kubernetes cluster runs here, so the deploy references are checked statically:
 * they parse, their probes and ports match Studio's configuration, and their grace periods cover the
 * drain as configured.
 */
class DeployManifestsTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Path DEPLOY = Haproxy.projectConfig().getParent().getParent();
  private static final Config CONFIG = ConfigFactory.load();

  /** The sum of the CoordinatedShutdown phases Studio's drain uses. */
  static long drainSeconds() {
    Config phases = CONFIG.getConfig("pekko.coordinated-shutdown.phases");
    long total = 0;
    for (String p : List.of("before-service-unbind", "service-unbind", "service-requests-done", "service-stop",
        "before-actor-system-terminate")) {
      total += phases.getDuration(p + ".timeout").toSeconds();
    }
    return total;
  }

  @Test
  void drainPhasesCoverTheirTasks() {
    Config phases = CONFIG.getConfig("pekko.coordinated-shutdown.phases");
    Duration lbGrace = CONFIG.getDuration("studio.drain.lb-grace");
    Duration runGrace = CONFIG.getDuration("studio.drain.run-grace");
    assertTrue(phases.getDuration("before-service-unbind.timeout").compareTo(lbGrace) > 0, "refuse phase covers lb-grace");
    assertTrue(phases.getDuration("service-stop.timeout").compareTo(runGrace) > 0, "runs phase covers run-grace");
  }

  @Test
  void kubernetesBaseProbesPortsAndGracePeriodMatchTheConfiguration() throws Exception {
    Path base = DEPLOY.resolve("kubernetes/base");
    JsonNode kustomization = YAML.readTree(base.resolve("kustomization.yaml").toFile());
    for (JsonNode r : kustomization.get("resources")) assertTrue(Files.exists(base.resolve(r.asText())), r.asText());
    JsonNode deployment = YAML.readTree(base.resolve("deployment.yaml").toFile());
    assertEquals("Deployment", deployment.get("kind").asText());
    JsonNode pod = deployment.at("/spec/template/spec");
    long grace = pod.get("terminationGracePeriodSeconds").asLong();
    assertTrue(grace > drainSeconds(), "terminationGracePeriodSeconds " + grace + " must exceed the drain's " + drainSeconds() + " s");
    JsonNode c = pod.get("containers").get(0);
    assertEquals(CONFIG.getInt("studio.http.port"), c.at("/ports/0/containerPort").asInt());
    assertEquals("/livez", c.at("/livenessProbe/httpGet/path").asText());
    assertEquals("/readyz", c.at("/readinessProbe/httpGet/path").asText());
    assertEquals("http", c.at("/readinessProbe/httpGet/port").asText());
    assertEquals(0, deployment.at("/spec/strategy/rollingUpdate/maxUnavailable").asInt(), "never below the replica count");
    JsonNode service = YAML.readTree(base.resolve("service.yaml").toFile());
    assertEquals("http", service.at("/spec/ports/0/targetPort").asText());
    JsonNode pdb = YAML.readTree(base.resolve("pdb.yaml").toFile());
    assertEquals(deployment.at("/spec/selector/matchLabels"), pdb.at("/spec/selector/matchLabels"));
  }

  @Test
  void haOverlayRunsThreeReplicas() throws Exception {
    Path ha = DEPLOY.resolve("kubernetes/overlays/ha");
    JsonNode k = YAML.readTree(ha.resolve("kustomization.yaml").toFile());
    assertEquals("../../base", k.get("resources").get(0).asText());
    JsonNode patch = YAML.readTree(ha.resolve(k.at("/patches/0/path").asText()).toFile());
    assertEquals("studio", patch.at("/metadata/name").asText());
    assertEquals(3, patch.at("/spec/replicas").asInt());
  }

  @Test
  void composeRunsPostgresThreeReplicasAndTheSameHaproxyConfig() throws Exception {
    JsonNode compose = YAML.readTree(DEPLOY.resolve("compose/compose.ha.yaml").toFile());
    JsonNode services = compose.get("services");
    for (String s : List.of("postgres", "studio1", "studio2", "studio3", "haproxy")) assertTrue(services.has(s), s);
    assertTrue(services.at("/haproxy/volumes/0").asText().startsWith("../haproxy/haproxy.cfg:"), "the shared haproxy.cfg");
    assertTrue(Files.exists(DEPLOY.resolve("compose/Dockerfile")));
    String grace = compose.at("/x-studio/stop_grace_period").asText(); // the block every replica service merges
    assertEquals("jdbc:postgresql://postgres:5432/studio", compose.at("/x-studio/environment/STUDIO_DB_URL").asText());
    assertTrue(Long.parseLong(grace.replace("s", "")) > drainSeconds(), "stop_grace_period covers the drain");
  }

  @Test
  void haproxyChecksReadinessAndItsConfigIsValid() throws Exception {
    String cfg = Files.readString(Haproxy.projectConfig());
    assertTrue(cfg.contains("uri /readyz") && cfg.contains("http-check expect status 200") && cfg.contains("balance roundrobin"));
    ProcessBuilder pb = new ProcessBuilder("haproxy", "-c", "-f", Haproxy.projectConfig().toString()).redirectErrorStream(true);
    pb.environment().put("STUDIO_LB_BIND", "127.0.0.1:18080");
    for (int i = 1; i <= 3; i++) pb.environment().put("STUDIO_" + i, "127.0.0.1:" + (18080 + i));
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(10, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
  }
}
