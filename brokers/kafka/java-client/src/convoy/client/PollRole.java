package convoy.client;

import com.fasterxml.jackson.databind.JsonNode;

/** A consumer's poll thread as Main drives it: a classic or consumer-protocol group member, or a share group's. */
interface PollRole {
  /** From the socket's reader thread. */
  void command(JsonNode m);

  /** Joins the group; returns once the member may be called ready. */
  void join(long timeoutMs);

  /** The poll loop, until the worker says close; then closes the consumer. */
  void run() throws InterruptedException;
}
