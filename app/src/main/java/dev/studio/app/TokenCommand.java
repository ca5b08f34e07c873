package dev.studio.app;

import com.typesafe.config.ConfigFactory;
import dev.studio.auth.AuditLog;
import dev.studio.auth.Principal;
import dev.studio.auth.Role;
import dev.studio.auth.TokenStore;
import dev.studio.migrations.BuildInfo;
import dev.studio.migrations.Migrator;
import dev.studio.settings.StudioSettings;
import java.util.UUID;

/**
 * {@code studio token create --name N --role R | list | revoke ID}: token administration straight on
 * the database, for the first admin token of an installation or when every admin token is lost.
 * Changes are written to the audit log as {@code cli:<user>}.
 */
final class TokenCommand {
  private TokenCommand() {}

  static String usage() {
    return """
        usage: studio token create --name NAME --role viewer|operator|admin
               studio token list
               studio token revoke TOKEN_ID""";
  }

  static int run(String[] args) throws Exception {
    if (args.length == 0 || args[0].equals("help")) {
      System.out.println(usage());
      return args.length == 0 ? Main.EXIT_USAGE : 0;
    }
    String name = null;
    String role = null;
    String id = null;
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--name" -> name = i + 1 < args.length ? args[++i] : null;
        case "--role" -> role = i + 1 < args.length ? args[++i] : null;
        default -> id = args[i];
      }
    }
    Role parsedRole;
    UUID parsedId;
    try {
      parsedRole = args[0].equals("create") ? Role.parse(role) : null;
      if (args[0].equals("create")) TokenStore.validName(name);
      parsedId = args[0].equals("revoke") ? UUID.fromString(String.valueOf(id)) : null;
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage() + "\n" + usage());
      return Main.EXIT_USAGE;
    }
    StudioSettings settings = StudioSettings.from(ConfigFactory.load());
    try (Storage storage = Storage.open(settings, "studio-cli", null)) {
      new Migrator(storage.db().dataSource(), BuildInfo.current()).migrate();
      TokenStore tokens = new TokenStore(storage.db());
      AuditLog audit = new AuditLog(storage.db(), "cli@" + settings.replica().host());
      try (audit) {
        return act(args[0], tokens, audit, name, parsedRole, parsedId);
      }
    }
  }

  private static int act(String command, TokenStore tokens, AuditLog audit, String name, Role parsedRole, UUID parsedId)
      throws Exception {
    Principal cli = new Principal(null, "cli:" + System.getProperty("user.name"), Role.ADMIN);
    switch (command) {
      case "create" -> {
        TokenStore.Created c = tokens.create(name, parsedRole);
        audit.record(cli, "token.create", c.token().id().toString(), 201).get();
        System.out.printf("id:    %s%nname:  %s%nrole:  %s%ntoken: %s%n(the token is shown this once; only its hash is stored)%n",
            c.token().id(), c.token().name(), c.token().role(), c.secret());
      }
      case "list" -> {
        System.out.printf("%-36s  %-8s  %-25s  %-25s  %s%n", "ID", "ROLE", "CREATED", "REVOKED", "NAME");
        for (var t : tokens.list(10_000)) {
          System.out.printf("%-36s  %-8s  %-25s  %-25s  %s%n", t.id(), t.role(), t.createdAt(),
              t.revokedAt() == null ? "-" : t.revokedAt(), t.name());
        }
      }
      case "revoke" -> {
        var t = tokens.revoke(parsedId);
        audit.record(cli, "token.revoke", parsedId.toString(), t.isPresent() ? 204 : 404).get();
        if (t.isEmpty()) {
          System.err.println("no such token: " + parsedId);
          return Main.EXIT_FAILURE;
        }
        System.out.println("revoked " + parsedId + " (" + t.get().name() + ")");
      }
      default -> {
        System.err.println("unknown token command: " + command + "\n" + usage());
        return Main.EXIT_USAGE;
      }
    }
    return 0;
  }
}
