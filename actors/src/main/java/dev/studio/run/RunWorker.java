package dev.studio.run;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.studio.bus.BusCodec;
import dev.studio.bus.FramePublisher;
import dev.studio.cluster.ClusterViews;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes one run, one item at a time, on a blocking thread: before each item it checks the drain
 * flag, the stop flag in the database (set through any replica) and the cluster's split-brain
 * verdict. Progress is stored and streamed on the {@code runs} topic at most every
 * {@code PROGRESS_EVERY}, and always at the end.
 */
final class RunWorker implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(RunWorker.class);
  static final String TOPIC = "runs";
  private static final Duration PROGRESS_EVERY = Duration.ofMillis(250);

  private final RunView run;
  private final RunKind kind;
  private final RunContext ctx;
  private final RunStore store;
  private final ClusterViews views;
  private final FramePublisher frames;
  private final String replicaId;
  private final AtomicBoolean interrupt;

  RunWorker(RunView run, RunKind kind, RunContext ctx, RunStore store, ClusterViews views, FramePublisher frames,
      String replicaId, AtomicBoolean interrupt) {
    this.run = run;
    this.kind = kind;
    this.ctx = ctx;
    this.store = store;
    this.views = views;
    this.frames = frames;
    this.replicaId = replicaId;
    this.interrupt = interrupt;
  }

  @Override
  public void run() {
    int done = 0;
    Integer total = null;
    try {
      List<String> items = kind.select(ctx);
      total = items.size();
      store.progress(run.id(), replicaId, 0, total, null);
      if (ctx.params().path("dryRun").asBoolean(false)) {
        ObjectNode result = JsonNodeFactory.instance.objectNode().put("dryRun", true);
        items.forEach(result.putArray("items")::add);
        finish("succeeded", 0, total, null, result);
        return;
      }
      long lastProgress = System.nanoTime();
      for (String item : items) {
        if (interrupt.get()) {
          finish("interrupted", done, total, "the replica was stopped (drain) before the run finished", null);
          return;
        }
        if (store.stopRequested(run.id())) {
          finish("stopped", done, total, null, null);
          return;
        }
        if (views.splitBrain(run.clusterId())) {
          finish("failed", done, total, "the cluster's split-brain verdict turned bad; stopped before " + item, null);
          return;
        }
        kind.apply(ctx, item);
        done++;
        if (System.nanoTime() - lastProgress > PROGRESS_EVERY.toNanos()) {
          lastProgress = System.nanoTime();
          if (!store.progress(run.id(), replicaId, done, total, item)) return; // recovered elsewhere: stop
          stream("running", done, total, item);
        }
      }
      finish("succeeded", done, total, null, null);
    } catch (Exception e) {
      log.warn("run {} ({}) failed after {} item(s): {}", run.id(), kind.name(), done, e.getMessage());
      finish("failed", done, total, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage(), null);
    }
  }

  private void finish(String state, int done, Integer total, String error, ObjectNode result) {
    try {
      store.progress(run.id(), replicaId, done, total, null);
      store.finish(run.id(), replicaId, state, done, error, result);
      stream(state, done, total, null);
      log.info("run {} ({}) {}: {}/{}", run.id(), kind.name(), state, done, total);
    } catch (Exception e) {
      log.warn("could not record the end of run {}: {}", run.id(), e.getMessage());
    }
  }

  private void stream(String state, int done, Integer total, String item) {
    ObjectNode f = JsonNodeFactory.instance.objectNode().put("id", run.id().toString()).put("kind", kind.name())
        .put("state", state).put("done", done);
    if (total != null) f.put("total", total);
    if (item != null) f.put("currentItem", item);
    frames.publish(TOPIC, BusCodec.canonicalObject(f.toString()));
  }
}
