package dev.studio.testing;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.PostgreSQLContainer;

/** PostgreSQL in a Testcontainers container, used where a Docker engine answers. */
final class ContainerServer implements PostgresServer {
  private final PostgreSQLContainer<?> container;

  private ContainerServer(PostgreSQLContainer<?> container) {
    this.container = container;
  }

  static boolean dockerAnswers() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (Throwable t) {
      return false;
    }
  }

  static ContainerServer start15() {
    PostgreSQLContainer<?> c = new PostgreSQLContainer<>("postgres:15-alpine")
        .withCommand("postgres", "-c", "max_connections=300", "-c", "fsync=off");
    c.start();
    return new ContainerServer(c);
  }

  @Override
  public String host() {
    return container.getHost();
  }

  @Override
  public int port() {
    return container.getMappedPort(5432);
  }

  @Override
  public String user() {
    return container.getUsername();
  }

  @Override
  public String password() {
    return container.getPassword();
  }

  @Override
  public String adminDatabase() {
    return container.getDatabaseName();
  }

  /** A restarted container gets a new mapped port, so restart tests use an embedded server instead. */
  @Override
  public boolean restartable() {
    return false;
  }

  @Override
  public void stop() {
    throw new UnsupportedOperationException("container servers are not restarted; use TestPostgres.dedicated()");
  }

  @Override
  public void start() {
    throw new UnsupportedOperationException("container servers are not restarted; use TestPostgres.dedicated()");
  }

  @Override
  public String describe() {
    return "Testcontainers " + container.getDockerImageName() + " on " + host() + ":" + port();
  }
}
