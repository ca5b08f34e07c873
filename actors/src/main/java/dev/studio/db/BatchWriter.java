package dev.studio.db;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit: one writer thread drains a queue, so under load many writes share a transaction
 * (batched, never delayed when idle), and each caller's future completes once its batch committed.
 * Used where every write takes a global ordering lock, which one-transaction-per-write would turn
 * into a queue on that lock.
 *
 * @param <T> what callers submit
 * @param <R> what each gets back once committed
 */
public final class BatchWriter<T, R> implements AutoCloseable {
  /** Writes one batch in one transaction; returns one result per item, in order. */
  public interface Write<T, R> {
    List<R> write(List<T> batch) throws SQLException;
  }

  private record Pending<T, R>(T item, CompletableFuture<R> result) {}

  private static final Logger log = LoggerFactory.getLogger(BatchWriter.class);
  private final String what;
  private final int maxBatch;
  private final Write<T, R> write;
  private final BlockingQueue<Pending<T, R>> queue;
  private final Thread writer;
  private volatile boolean closed;

  public BatchWriter(String what, int capacity, int maxBatch, Write<T, R> write) {
    this.what = what;
    this.maxBatch = maxBatch;
    this.write = write;
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.writer = new Thread(this::run, "studio-" + what + "-writer");
    writer.setDaemon(true);
    writer.start();
  }

  public CompletableFuture<R> submit(T item) {
    CompletableFuture<R> result = new CompletableFuture<>();
    if (closed || !queue.offer(new Pending<>(item, result))) {
      result.completeExceptionally(new IllegalStateException(closed ? what + " writer closed" : what + " queue full"));
    }
    return result;
  }

  private void run() {
    List<Pending<T, R>> batch = new ArrayList<>(maxBatch);
    List<T> items = new ArrayList<>(maxBatch);
    while (!closed || !queue.isEmpty()) {
      try {
        Pending<T, R> first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) continue;
        batch.add(first);
        queue.drainTo(batch, maxBatch - 1);
        for (Pending<T, R> p : batch) items.add(p.item());
        List<R> results = write.write(items);
        for (int i = 0; i < batch.size(); i++) batch.get(i).result().complete(results.get(i));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        log.warn("could not write {} {}(s): {}", batch.size(), what, e.getMessage());
        for (Pending<T, R> p : batch) p.result().completeExceptionally(e);
      } finally {
        batch.clear();
        items.clear();
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      writer.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
