package convoy.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * before-commit and the worker's commit-ok (docs/client-protocol.md, commits-later), on a
 * consumer's poll thread: by commit-ok the worker made what it handled durable.
 */
final class CommitRequests {
  private final Wire wire;
  private long next = 1;
  private Long ok;

  CommitRequests(Wire wire) {
    this.wire = wire;
  }

  /** The worker's commit-ok line. */
  void ok(long id) {
    ok = id;
  }

  /**
   * Writes before-commit and handles the worker's other lines until its commit-ok; false when
   * none came within waitMs (logged with `otherwise`, what the consumer does then).
   */
  boolean ask(long waitMs, LinkedBlockingQueue<JsonNode> commands, Consumer<JsonNode> handle, String otherwise) {
    long id = next++;
    ObjectNode ask = Wire.message("before-commit");
    ask.put("id", id);
    wire.write(ask);
    long deadline = System.currentTimeMillis() + waitMs;
    try {
      while (ok == null || ok != id) {
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) {
          wire.log("no commit-ok from the worker within " + waitMs + " ms; " + otherwise);
          return false;
        }
        JsonNode m = commands.poll(left, TimeUnit.MILLISECONDS);
        if (m != null) handle.accept(m);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
