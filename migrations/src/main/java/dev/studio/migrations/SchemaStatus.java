package dev.studio.migrations;

/**
 * Where the database schema stands relative to this build.
 *
 * @param applied the highest applied migration version, or null on an empty database
 * @param required the highest migration this build ships
 * @param minBuild the oldest build the schema allows (from {@code schema_compat}), or null
 */
public record SchemaStatus(String applied, String required, String minBuild) {

  /** The schema lacks migrations this build needs: serve nothing until it is migrated. */
  public boolean behind() {
    return applied == null || Migrator.compareMigrationVersions(applied, required) < 0;
  }

  /** The schema is newer than this build (a rolling update in progress): served while compatible. */
  public boolean ahead() {
    return applied != null && Migrator.compareMigrationVersions(applied, required) > 0;
  }

  public String describe() {
    if (behind()) return "schema at " + (applied == null ? "nothing" : applied) + ", build needs " + required;
    if (ahead()) return "schema at " + applied + " is ahead of build's " + required + " (compatible)";
    return "schema at " + applied;
  }
}
