package dev.studio.migrations;

/** The schema demands a newer build than this one (its {@code schema_compat} floor is above us). */
public final class IncompatibleSchemaException extends RuntimeException {
  public IncompatibleSchemaException(String buildVersion, String minBuild) {
    super("this build (" + buildVersion + ") is older than the schema's floor: schema_compat.min_build = "
        + minBuild + "; run a build of " + minBuild + " or newer");
  }
}
