package convoy.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/** A consumer's poll thread as Main drives it: a classic or consumer-protocol group member, or a share group's. */
interface PollRole {
  /** From the socket's reader thread. */
  void command(JsonNode m);

  /** Joins the group; returns once the member may be called ready. */
  void join(long timeoutMs);

  /** The poll loop, until the worker says close; then closes the consumer. */
  void run() throws InterruptedException;

  /** A worker's line on the poll thread: a settlement, a commit-ok, a request, or close. */
  static void dispatch(JsonNode m, Wire wire, CommitRequests commits, Supplier<Map<String, Integer>> errorsSeen, BiConsumer<Long, String> settle, Runnable close) {
    switch (m.path("type").asText()) {
      case "settle":
        settle.accept(m.path("id").asLong(), m.path("how").asText());
        break;
      case "commit-ok":
        commits.ok(m.path("id").asLong());
        break;
      case "request":
        Main.reply(wire, m, errorsSeen.get());
        break;
      case "close":
        close.run();
        break;
      default:
        break;
    }
  }
}
