package convoy.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * One request fault: which requests it selects (API, topic and partitions, client, position on
 * the connection) and what it does to them (reject before the broker sees them, rewrite the
 * broker's answer, hold the answer). Positions are counted per connection and per rule: among
 * the requests of the selected APIs (and client) on that connection, in arrival order.
 */
final class Rule {
  enum Action { REJECT, REWRITE, HOLD }

  static final int EVIDENCE_KEPT = 500;

  final String id;
  final Set<ApiKeys> apis = new HashSet<>();
  final String topic;
  final Set<Integer> partitions = new HashSet<>();
  final String client;
  final long every;
  final double share;
  final int whileInFlight;
  final long limit;
  final long seed;
  final Action action;
  final Errors error;
  final long holdMs;
  /** Only the connections to the node that leads this partition of `topic` (resolved when added). */
  final Integer leaderOf;
  /** The link names (node-<id>) it acts on; null: every link. */
  volatile Set<String> nodes;

  private final Map<Integer, long[]> counts = new ConcurrentHashMap<>();
  private final Map<Integer, Random> randoms = new ConcurrentHashMap<>();
  final AtomicLong acted = new AtomicLong();
  final AtomicLong considered = new AtomicLong();
  final ArrayNode evidence = JsonNodeFactory.instance.arrayNode();
  /** Rewrites waiting for the broker's answer (the original error), by correlation id and link. */
  final Map<String, ObjectNode> pendingEvidence = new ConcurrentHashMap<>();
  /** Held Fetch answers: how many, their hold summed, and the records in them per partition. */
  final AtomicLong heldAnswers = new AtomicLong();
  final AtomicLong heldMsTotal = new AtomicLong();
  final Map<String, AtomicLong> heldRecords = new ConcurrentHashMap<>();

  Rule(JsonNode spec) {
    id = spec.path("id").asText();
    if (id.isEmpty()) throw new IllegalArgumentException("a rule needs an id");
    for (JsonNode a : spec.path("apis")) apis.add(api(a.asText()));
    if (apis.isEmpty()) throw new IllegalArgumentException("rule " + id + ": name at least one API");
    topic = spec.path("topic").isTextual() ? spec.path("topic").asText() : null;
    for (JsonNode p : spec.path("partitions")) partitions.add(p.asInt());
    client = spec.path("client").isTextual() ? spec.path("client").asText() : null;
    JsonNode pos = spec.path("position");
    every = pos.path("every").asLong(1);
    share = pos.path("share").asDouble(1.0);
    whileInFlight = pos.path("whileInFlight").asInt(1);
    limit = pos.path("limit").asLong(Long.MAX_VALUE);
    seed = pos.path("seed").asLong(1);
    action = Action.valueOf(spec.path("action").asText("hold").toUpperCase());
    error = spec.path("error").isTextual() ? errorNamed(spec.path("error").asText()) : null;
    holdMs = spec.path("holdMs").asLong(0);
    leaderOf = spec.path("leaderOf").isInt() ? spec.path("leaderOf").asInt() : null;
    if (leaderOf != null && topic == null) throw new IllegalArgumentException("rule " + id + ": leaderOf needs a topic");
    if (action != Action.HOLD && error == null) throw new IllegalArgumentException("rule " + id + ": " + action + " needs an error");
    if (action == Action.REJECT && !(apis.size() == 1 && (apis.contains(ApiKeys.PRODUCE) || apis.contains(ApiKeys.OFFSET_COMMIT)))) {
      throw new IllegalArgumentException("rule " + id + ": reject acts on Produce or OffsetCommit requests (one API)");
    }
  }

  static ApiKeys api(String name) {
    String wanted = name.replace("_", "").toLowerCase();
    for (ApiKeys k : ApiKeys.values()) if (k.name().replace("_", "").toLowerCase().equals(wanted) || k.name.replace("_", "").toLowerCase().equals(wanted)) return k;
    throw new IllegalArgumentException("unknown Kafka API " + name);
  }

  static Errors errorNamed(String name) {
    for (Errors e : Errors.values()) if (e.name().equals(name)) return e;
    throw new IllegalArgumentException("unknown Kafka error " + name);
  }

  boolean onLink(String linkName) {
    Set<String> n = nodes;
    return n == null || n.contains(linkName);
  }

  /** Counts a held Fetch answer and the records it carried, per partition. */
  void held(Map<String, Integer> records) {
    heldAnswers.incrementAndGet();
    heldMsTotal.addAndGet(holdMs);
    records.forEach((p, n) -> heldRecords.computeIfAbsent(p, k -> new AtomicLong()).addAndGet(n));
  }

  boolean wantsPartitions() {
    return topic != null || !partitions.isEmpty();
  }

  boolean partitionSelected(String topicName, int partition) {
    return (topic == null || topic.equals(topicName)) && (partitions.isEmpty() || partitions.contains(partition));
  }

  /**
   * Counts a request of a selected API and client on connection `link`; true when its position
   * selects it (`inFlight`: this connection's requests in flight, this one included).
   */
  boolean positionSelects(int link, int inFlight) {
    considered.incrementAndGet();
    long[] c = counts.computeIfAbsent(link, k -> new long[2]);
    synchronized (c) {
      c[0]++;
      if (c[1] >= limit) return false;
      if (inFlight < whileInFlight) return false;
      if (c[0] % every != 0) return false;
      if (share < 1.0 && randoms.computeIfAbsent(link, k -> new Random(seed * 1_000_003L + k)).nextDouble() >= share) return false;
      c[1]++;
      return true;
    }
  }

  void record(ObjectNode entry) {
    acted.incrementAndGet();
    synchronized (evidence) {
      if (evidence.size() < EVIDENCE_KEPT) evidence.add(entry);
    }
  }

  ObjectNode describe() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("id", id);
    o.put("action", action.name().toLowerCase());
    o.put("considered", considered.get());
    o.put("acted", acted.get());
    if (nodes != null) {
      var n = o.putArray("nodes");
      nodes.forEach(n::add);
    }
    if (heldAnswers.get() > 0) {
      ObjectNode h = o.putObject("heldFetch");
      h.put("answers", heldAnswers.get());
      h.put("holdMsTotal", heldMsTotal.get());
      ObjectNode r = h.putObject("records");
      heldRecords.forEach((p, n) -> r.put(p, n.get()));
    }
    synchronized (evidence) {
      o.set("actions", evidence.deepCopy());
    }
    return o;
  }
}
