package dev.studio.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.studio.bus.Notify;
import dev.studio.db.Database;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The {@code cluster} table. Every change signals {@link #CACHE_KIND} in its own transaction, so every
 * replica's caches and its ownership pass see it at once.
 */
public final class ClusterStore {
  public static final String CACHE_KIND = "clusters";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A cluster of that name exists already. */
  public static final class NameTaken extends RuntimeException {
    public NameTaken(String name) {
      super("a cluster named '" + name + "' exists already");
    }
  }

  private final Database db;

  public ClusterStore(Database db) {
    this.db = db;
  }

  public Cluster create(ClusterSpec spec) throws SQLException {
    UUID id = UUID.randomUUID();
    try {
      return db.inTransaction(c -> {
        Cluster created = Database.query(c, """
            INSERT INTO cluster (id, name, management_url, username, password_ref, settings)
            VALUES (?, ?, ?, ?, ?, ?::jsonb) RETURNING *""", ClusterStore::row,
            id, spec.name(), spec.managementUrl(), spec.username(), spec.passwordRef(), spec.settings().toString()).get(0);
        Notify.signal(c, CACHE_KIND, id.toString());
        return created;
      });
    } catch (SQLException e) {
      if ("23505".equals(e.getSQLState())) throw new NameTaken(spec.name());
      throw e;
    }
  }

  public Optional<Cluster> update(UUID id, ClusterSpec spec) throws SQLException {
    try {
      return db.inTransaction(c -> {
        List<Cluster> rows = Database.query(c, """
            UPDATE cluster SET name = ?, management_url = ?, username = ?, password_ref = ?, settings = ?::jsonb,
              updated_at = now() WHERE id = ? RETURNING *""", ClusterStore::row,
            spec.name(), spec.managementUrl(), spec.username(), spec.passwordRef(), spec.settings().toString(), id);
        if (!rows.isEmpty()) Notify.signal(c, CACHE_KIND, id.toString());
        return rows.stream().findFirst();
      });
    } catch (SQLException e) {
      if ("23505".equals(e.getSQLState())) throw new NameTaken(spec.name());
      throw e;
    }
  }

  public boolean delete(UUID id) throws SQLException {
    return db.inTransaction(c -> {
      boolean gone = Database.update(c, "DELETE FROM cluster WHERE id = ?", id) > 0;
      if (gone) Notify.signal(c, CACHE_KIND, id.toString());
      return gone;
    });
  }

  public Optional<Cluster> get(UUID id) throws SQLException {
    return db.queryOne("SELECT * FROM cluster WHERE id = ?", ClusterStore::row, id);
  }

  public List<Cluster> list(int limit) throws SQLException {
    return db.query("SELECT * FROM cluster ORDER BY name LIMIT ?", ClusterStore::row, limit);
  }

  public List<UUID> ids(Connection c) throws SQLException {
    return Database.query(c, "SELECT id FROM cluster ORDER BY id", rs -> rs.getObject(1, UUID.class));
  }

  public static Cluster row(ResultSet rs) throws SQLException {
    JsonNode settings;
    try {
      settings = JSON.readTree(rs.getString("settings"));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new SQLException("cluster.settings is not JSON", e);
    }
    return new Cluster(rs.getObject("id", UUID.class), rs.getString("name"), rs.getString("management_url"),
        rs.getString("username"), rs.getString("password_ref"), settings,
        rs.getTimestamp("created_at").toInstant(), rs.getTimestamp("updated_at").toInstant());
  }
}
