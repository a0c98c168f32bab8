package convoy.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;

/**
 * A share group member (KafkaShareConsumer), on one thread that owns the consumer. Several
 * members read one partition; the broker locks each record it hands out for the group's lock
 * duration and counts its deliveries.
 *
 * As a Java service that handles records one at a time: it polls only when every record of the
 * last poll was delivered and settled (explicit mode refuses a poll before that; implicit mode
 * would accept the unsettled ones with it). Explicit mode acknowledges each record as it is
 * settled: ack ACCEPT, requeue and release RELEASE (the broker gives it out again, counting a
 * delivery), dead-letter REJECT (archived, never delivered again; to the group's dead-letter
 * topic where it has one). Implicit mode accepts every record of a poll on the next poll,
 * whatever its handler did. The acknowledgements reach the broker with the next poll, after the
 * worker made what it handled durable (before-commit, commit-ok). With renewLocks a record still
 * in a handler has its lock renewed (RENEW) every half lock duration.
 */
final class ShareConsumerRole implements PollRole {
  private static final Duration POLL = Duration.ofMillis(50);
  private static final Duration CLOSE_STEP = Duration.ofMillis(1_500);
  private static final long COMMIT_OK_WAIT_MS = 5_000;

  private final Settings settings;
  private final Wire wire;
  private final KafkaShareConsumer<String, byte[]> consumer;
  private final LinkedBlockingQueue<JsonNode> commands = new LinkedBlockingQueue<>();
  private final Map<Long, Held> held = new HashMap<>();
  /** Fetched, not yet handed out, by partition and offset (a renewed record comes back in place). */
  private final LinkedHashMap<String, ConsumerRecord<String, byte[]>> buffer = new LinkedHashMap<>();
  private final int limit;
  private final boolean explicit;
  private final long renewEveryMs;
  private long nextDelivery = 1;
  private boolean closing;
  /** Settlements since the last poll: they reach the broker with the next one. */
  private boolean acksPending;
  /** Renewed records come back from the next poll (the client hands them out again). */
  private boolean renewedToTake;
  private final CommitRequests commits;
  /** When this member last polled or renewed: its locks run from there. */
  private long renewedAt;

  private static final class Held {
    ConsumerRecord<String, byte[]> record;

    Held(ConsumerRecord<String, byte[]> record) {
      this.record = record;
    }
  }

  ShareConsumerRole(Settings settings, Wire wire) throws Exception {
    this.settings = settings;
    this.wire = wire;
    this.commits = new CommitRequests(wire);
    this.limit = Math.max(1, settings.maxInFlight);
    JsonNode share = settings.share();
    this.explicit = !"implicit".equals(share.path("acknowledgement").asText("explicit"));
    this.renewEveryMs = explicit && share.path("renewLocks").asBoolean(false) ? Math.max(500, share.path("lockDurationMs").asLong(30_000) / 2) : 0;
    GroupConfigs.set(settings, groupConfigs(share));
    this.consumer = new KafkaShareConsumer<>(settings.shareConsumerProperties());
    if (explicit) consumer.setAcknowledgementCommitCallback(this::acknowledged);
  }

  private Map<String, String> groupConfigs(JsonNode share) {
    Map<String, String> configs = new HashMap<>();
    for (Map.Entry<String, JsonNode> e : share.path("groupConfigs").properties()) configs.put(e.getKey(), e.getValue().asText());
    if (share.path("deadLetterTopic").asBoolean(false)) {
      configs.put("errors.deadletterqueue.topic.name", "dlq." + settings.topic);
      configs.put("errors.deadletterqueue.copy.record.enable", "true");
    }
    return configs;
  }

  /** The broker's answer to acknowledgements: a failure means the lock had expired (the record went to another member). */
  private void acknowledged(Map<TopicIdPartition, java.util.Set<Long>> offsets, Exception e) {
    if (e == null) return;
    StringBuilder s = new StringBuilder();
    for (Map.Entry<TopicIdPartition, java.util.Set<Long>> o : offsets.entrySet()) s.append(s.length() == 0 ? "" : " ").append("p").append(o.getKey().partition()).append('@').append(o.getValue());
    wire.log("acknowledgement of " + s + " refused: " + e.getClass().getSimpleName() + ": " + e.getMessage());
  }

  @Override
  public void command(JsonNode m) {
    commands.add(m);
  }

  /** Subscribes and polls once: the member joins its share group with its first poll. */
  @Override
  public void join(long timeoutMs) {
    consumer.subscribe(java.util.Collections.singletonList(settings.topic));
    take(consumer.poll(POLL));
  }

  @Override
  public void run() throws InterruptedException {
    while (!closing) {
      JsonNode m;
      while ((m = commands.poll()) != null) handle(m);
      if (closing) break;
      if (renewEveryMs > 0) renewDue();
      while (held.size() < limit && !buffer.isEmpty()) deliver(next());
      if (renewedToTake || (buffer.isEmpty() && held.isEmpty())) {
        if (acksPending) beforeCommit();
        acksPending = false;
        renewedToTake = false;
        renewedAt = System.currentTimeMillis();
        take(consumer.poll(POLL));
      } else {
        m = commands.poll(POLL.toMillis(), TimeUnit.MILLISECONDS);
        if (m != null) handle(m);
      }
    }
    long started = System.nanoTime();
    // What was fetched and never handed out goes back to the group at once.
    if (explicit) for (ConsumerRecord<String, byte[]> r : buffer.values()) consumer.acknowledge(r, AcknowledgeType.RELEASE);
    buffer.clear();
    if (acksPending) beforeCommit();
    try {
      if (explicit) logFailures(consumer.commitSync(CLOSE_STEP));
    } catch (RuntimeException e) {
      wire.log("acknowledging on close failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
    }
    consumer.close(CLOSE_STEP);
    long ms = (System.nanoTime() - started) / 1_000_000;
    if (ms > 1_000) wire.log("closing took " + ms + " ms (the last acknowledgements and leaving the group)");
  }

  /** A poll's records: renewed ones that came back replace the held or buffered copy; the rest wait in the buffer. */
  private void take(Iterable<ConsumerRecord<String, byte[]>> records) {
    for (ConsumerRecord<String, byte[]> r : records) {
      Held h = heldFor(r);
      if (h != null) h.record = r;
      else buffer.put(r.partition() + "@" + r.offset(), r);
    }
  }

  private ConsumerRecord<String, byte[]> next() {
    Iterator<ConsumerRecord<String, byte[]>> it = buffer.values().iterator();
    ConsumerRecord<String, byte[]> r = it.next();
    it.remove();
    return r;
  }

  private Held heldFor(ConsumerRecord<String, byte[]> r) {
    for (Held h : held.values()) if (h.record.partition() == r.partition() && h.record.offset() == r.offset()) return h;
    return null;
  }

  private void deliver(ConsumerRecord<String, byte[]> r) {
    long id = nextDelivery++;
    held.put(id, new Held(r));
    ObjectNode d = Wire.message("delivery");
    d.put("id", id);
    d.put("lane", "p" + r.partition());
    d.put("offset", r.offset());
    Optional<Short> count = r.deliveryCount();
    d.put("deliveryCount", count.isPresent() ? count.get() : 1);
    d.put("payload", r.value() == null ? new byte[0] : r.value());
    d.put("at", Wire.clockUs());
    wire.write(d);
  }

  /**
   * RENEW, once half a lock duration passed since the last poll or renewal, for every record
   * this member acquired and has not settled: those in handlers and those fetched and waiting.
   */
  private void renewDue() {
    long now = System.currentTimeMillis();
    if (held.isEmpty() || now - renewedAt < renewEveryMs) return;
    renewedAt = now;
    boolean any = false;
    for (Held h : held.values()) any |= renew(h.record);
    for (ConsumerRecord<String, byte[]> r : buffer.values()) any |= renew(r);
    if (!any) return;
    try {
      logFailures(consumer.commitSync(Duration.ofSeconds(5)));
      renewedToTake = true;
    } catch (RuntimeException e) {
      wire.log("sending lock renewals failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private boolean renew(ConsumerRecord<String, byte[]> r) {
    try {
      consumer.acknowledge(r, AcknowledgeType.RENEW);
      return true;
    } catch (RuntimeException e) {
      wire.log("renewing the lock of p" + r.partition() + "@" + r.offset() + " failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
      return false;
    }
  }

  private void logFailures(Map<TopicIdPartition, Optional<KafkaException>> results) {
    for (Map.Entry<TopicIdPartition, Optional<KafkaException>> r : results.entrySet()) {
      if (r.getValue().isPresent()) wire.log("acknowledgements of p" + r.getKey().partition() + " refused: " + r.getValue().get().getMessage());
    }
  }

  private void handle(JsonNode m) {
    PollRole.dispatch(m, wire, commits, java.util.Collections::emptyMap, this::settle, () -> closing = true);
  }


  private void settle(long id, String how) {
    Held h = held.remove(id);
    String error = h == null ? "no delivery " + id + " held" : explicit ? acknowledge(h.record, typeOf(how)) : null;
    if (h != null) acksPending = true;
    ObjectNode done = Wire.message("settled");
    done.put("id", id);
    if (error != null) done.put("error", error);
    wire.write(done);
  }

  /** Explicit mode: the record's acknowledgement, sent with the next poll; the error, if the client refused it. */
  private String acknowledge(ConsumerRecord<String, byte[]> r, AcknowledgeType type) {
    try {
      consumer.acknowledge(r, type);
      return null;
    } catch (RuntimeException e) {
      return "acknowledging p" + r.partition() + "@" + r.offset() + " failed: " + e.getClass().getSimpleName() + ": " + e.getMessage();
    }
  }

  static AcknowledgeType typeOf(String how) {
    switch (how) {
      case "ack": return AcknowledgeType.ACCEPT;
      case "dead-letter": return AcknowledgeType.REJECT;
      default: return AcknowledgeType.RELEASE; // requeue, release: the broker gives it out again
    }
  }

  /** before-commit, then the worker's commit-ok; the worker's other lines are handled meanwhile. */
  private boolean beforeCommit() {
    return commits.ask(COMMIT_OK_WAIT_MS, commands, this::handle, "acknowledging anyway");
  }

}
