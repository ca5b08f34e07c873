package dev.studio.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The built-in kinds {@code purge-queues} and {@code delete-queues}: select the queues of one vhost
 * whose name matches {@code pattern} (a regular expression, matched in full), then purge or delete
 * them one at a time. Params: {@code {"vhost":"/","pattern":"orders\\..*","dryRun":false}}.
 */
public final class QueueRun implements RunKind {
  private final String name;
  private final boolean delete;

  private QueueRun(String name, boolean delete) {
    this.name = name;
    this.delete = delete;
  }

  public static QueueRun purge() {
    return new QueueRun("purge-queues", false);
  }

  public static QueueRun delete() {
    return new QueueRun("delete-queues", true);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void validate(JsonNode params) {
    List<String> problems = new ArrayList<>();
    if (!params.path("vhost").isTextual() || params.get("vhost").asText().isEmpty()
        || params.get("vhost").asText().length() > 255) {
      problems.add("params.vhost: a vhost name (1 to 255 characters)");
    }
    if (!params.path("pattern").isTextual() || params.get("pattern").asText().length() > 500) {
      problems.add("params.pattern: a regular expression on the queue name (at most 500 characters)");
    } else {
      try {
        Pattern.compile(params.get("pattern").asText());
      } catch (PatternSyntaxException e) {
        problems.add("params.pattern: not a valid regular expression: " + e.getDescription());
      }
    }
    if (params.has("dryRun") && !params.get("dryRun").isBoolean()) problems.add("params.dryRun: true or false");
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("; ", problems));
  }

  @Override
  public List<String> select(RunContext ctx) throws Exception {
    Pattern p = Pattern.compile(ctx.params().get("pattern").asText());
    String vhost = ctx.params().get("vhost").asText();
    List<String> out = new ArrayList<>();
    for (JsonNode q : ctx.broker().queues(vhost)) {
      String queue = q.path("name").asText();
      if (p.matcher(queue).matches()) out.add(queue);
    }
    out.sort(null);
    return out;
  }

  @Override
  public void apply(RunContext ctx, String item) throws Exception {
    String vhost = ctx.params().get("vhost").asText();
    if (delete) {
      ctx.broker().deleteQueue(vhost, item);
    } else {
      ctx.broker().purge(vhost, item);
    }
  }
}
