package convoy.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The consumer side, on one thread that owns the KafkaConsumer (it is not thread-safe); the
 * socket's reader thread hands it the worker's lines through a queue.
 *
 * As a Java service that handles records one at a time: it polls only when every record of the
 * last poll was delivered and fewer than the in-flight bound are unsettled, so with one delivery
 * in flight (partition mode) a handler that blocks stops the poll loop, and
 * max.poll.interval.ms means what it means for such a service. Offsets are committed as every
 * convoy Kafka consumer commits them (the settled prefix, see Ledger): every autoCommitIntervalMs
 * with autoCommit, else after each settlement that moves it; always after the worker made what
 * it handled durable (capability commits-later: before-commit, commit-ok). requeue and release
 * seek back to the offset; dead-letter commits past it (Kafka has no dead-letter queue).
 */
final class ConsumerRole implements ConsumerRebalanceListener, PollRole {
  private static final Duration POLL = Duration.ofMillis(50);
  /**
   * Bounds on a commit: the worker's commit-ok, then the broker's answer. While closing they are
   * short, so the whole close fits the worker's bound on its client (10 s, of which the worker
   * may have spent 5 waiting for its handlers).
   */
  private long commitOkWaitMs = 5_000;
  private Duration commitTimeout = Duration.ofSeconds(5);
  private static final Duration CLOSE_STEP = Duration.ofMillis(1_500);

  private final Settings settings;
  private final Wire wire;
  private final ClientLog log;
  private final KafkaConsumer<String, byte[]> consumer;
  private final LinkedBlockingQueue<JsonNode> commands = new LinkedBlockingQueue<>();
  private final Map<Integer, Ledger> ledgers = new HashMap<>();
  private final Map<Integer, Ledger.Counts> counts = new HashMap<>();
  private final Map<Long, Held> held = new HashMap<>();
  private final ArrayDeque<ConsumerRecord<String, byte[]>> buffer = new ArrayDeque<>();
  private final int limit;
  private final boolean autoCommit;
  private final long autoCommitIntervalMs;
  private long nextDelivery = 1;
  private long nextAutoCommit;
  private boolean assignedOnce;
  private boolean closing;
  private boolean committing;
  private boolean committedOnClose;
  private boolean commitWanted;
  private final CommitRequests commits;

  private static final class Held {
    final int partition;
    final long offset;
    final Ledger ledger;
    final Ledger.Entry entry;

    Held(int partition, long offset, Ledger ledger, Ledger.Entry entry) {
      this.partition = partition;
      this.offset = offset;
      this.ledger = ledger;
      this.entry = entry;
    }
  }

  ConsumerRole(Settings settings, Wire wire, ClientLog log) throws Exception {
    this.settings = settings;
    this.wire = wire;
    this.commits = new CommitRequests(wire);
    this.log = log;
    this.limit = Math.max(settings.maxInFlight, settings.consumer.path("partitionsConsumedConcurrently").asInt(1));
    this.autoCommit = settings.consumer.path("autoCommit").asBoolean(true);
    this.autoCommitIntervalMs = settings.consumer.path("autoCommitIntervalMs").asLong(5_000);
    if (settings.consumerProtocol()) setGroupTimeouts();
    this.consumer = new KafkaConsumer<>(settings.consumerProperties());
  }

  /** The consumer protocol keeps the session timeout and heartbeat interval in the group's config. */
  private void setGroupTimeouts() throws Exception {
    Map<String, String> configs = new HashMap<>();
    JsonNode session = settings.consumer.path("sessionTimeoutMs");
    JsonNode heartbeat = settings.consumer.path("heartbeatIntervalMs");
    if (session.isNumber()) configs.put("consumer.session.timeout.ms", session.asText());
    if (heartbeat.isNumber()) configs.put("consumer.heartbeat.interval.ms", heartbeat.asText());
    GroupConfigs.set(settings, configs);
  }

  /** From the socket's reader thread. */
  @Override
  public void command(JsonNode m) {
    commands.add(m);
  }

  /** Subscribes and polls until the group assigned this member its partitions (possibly none). */
  @Override
  public void join(long timeoutMs) {
    consumer.subscribe(Collections.singletonList(settings.topic), this);
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!assignedOnce) {
      if (System.currentTimeMillis() > deadline) throw new IllegalStateException("no partition assignment from the group within " + timeoutMs / 1000 + " s");
      buffer.addAll(collect(consumer.poll(POLL)));
    }
  }

  /** The poll loop, until the worker says close. */
  @Override
  public void run() throws InterruptedException {
    nextAutoCommit = System.currentTimeMillis() + autoCommitIntervalMs;
    while (!closing) {
      JsonNode m;
      while ((m = commands.poll()) != null) handle(m);
      if (closing) break;
      if (autoCommit && System.currentTimeMillis() >= nextAutoCommit) {
        nextAutoCommit = System.currentTimeMillis() + autoCommitIntervalMs;
        commitNow();
      } else if (commitWanted) {
        commitNow();
      }
      while (held.size() < limit && !buffer.isEmpty()) deliver(buffer.pollFirst());
      if (buffer.isEmpty() && held.size() < limit) {
        buffer.addAll(collect(consumer.poll(POLL)));
      } else {
        // A handler holds every slot: wait for a settlement without polling, as the service would.
        m = commands.poll(POLL.toMillis(), TimeUnit.MILLISECONDS);
        if (m != null) handle(m);
      }
    }
    commitOkWaitMs = CLOSE_STEP.toMillis();
    commitTimeout = CLOSE_STEP;
    long started = System.nanoTime();
    commitNow();
    // The revocation close() makes commits nothing more: what was settled was just committed.
    committedOnClose = true;
    consumer.close(CLOSE_STEP);
    long ms = (System.nanoTime() - started) / 1_000_000;
    if (ms > 1_000) wire.log("closing took " + ms + " ms (the last commit and leaving the group)");
  }

  private List<ConsumerRecord<String, byte[]>> collect(Iterable<ConsumerRecord<String, byte[]>> records) {
    List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
    for (ConsumerRecord<String, byte[]> r : records) out.add(r);
    return out;
  }

  private void deliver(ConsumerRecord<String, byte[]> r) {
    Ledger ledger = ledgers.get(r.partition());
    if (ledger == null) return; // the partition was revoked since the poll
    long id = nextDelivery++;
    Ledger.Entry entry = ledger.deliver(r.offset());
    held.put(id, new Held(r.partition(), r.offset(), ledger, entry));
    ObjectNode d = Wire.message("delivery");
    d.put("id", id);
    d.put("lane", "p" + r.partition());
    d.put("offset", r.offset());
    d.put("deliveryCount", ledger.count(r.offset()));
    d.put("payload", r.value() == null ? new byte[0] : r.value());
    d.put("at", Wire.clockUs());
    wire.write(d);
  }

  private void handle(JsonNode m) {
    PollRole.dispatch(m, wire, commits, log::errorsSeen, this::settle, () -> closing = true);
  }


  private void settle(long id, String how) {
    Held h = held.remove(id);
    ObjectNode done = Wire.message("settled");
    done.put("id", id);
    if (h == null) {
      done.put("error", "no delivery " + id + " held");
      wire.write(done);
      return;
    }
    // Stale: a seek back or a revocation superseded it; its settlement changes nothing.
    if (h.entry.dropped || ledgers.get(h.partition) != h.ledger) {
      wire.write(done);
      return;
    }
    if (how.equals("ack") || how.equals("dead-letter")) {
      if (h.ledger.settle(h.entry) && !autoCommit) commitWanted = true;
      wire.write(done);
      return;
    }
    // requeue / release: this record and every later one of its partition come again; those
    // already sent to the worker are withdrawn, as the seek makes them stale.
    h.ledger.rewind(h.offset);
    buffer.removeIf(r -> r.partition() == h.partition && r.offset() >= h.offset);
    consumer.seek(new TopicPartition(settings.topic, h.partition), h.offset);
    withdraw(done, held -> held.partition == h.partition && held.offset >= h.offset);
    wire.write(done);
  }

  /** Takes back the sent deliveries that match, and names them in the message. */
  private void withdraw(ObjectNode message, java.util.function.Predicate<Held> stale) {
    ArrayNode ids = null;
    for (Iterator<Map.Entry<Long, Held>> it = held.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, Held> e = it.next();
      if (!stale.test(e.getValue())) continue;
      if (ids == null) ids = message.putArray("withdrawn");
      ids.add(e.getKey());
      it.remove();
    }
  }

  private Map<TopicPartition, OffsetAndMetadata> targets() {
    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
    for (Map.Entry<Integer, Ledger> e : ledgers.entrySet()) {
      Ledger l = e.getValue();
      if (l.committable >= 0 && l.committable != l.committed) out.put(new TopicPartition(settings.topic, e.getKey()), new OffsetAndMetadata(l.committable));
    }
    return out;
  }

  /** Commits every settled prefix that moved, after the worker made what it handled durable. */
  private void commitNow() {
    if (committing) {
      commitWanted = true;
      return;
    }
    commitWanted = false;
    Map<TopicPartition, OffsetAndMetadata> targets = targets();
    if (targets.isEmpty()) return;
    committing = true;
    try {
      if (!beforeCommit()) return;
      consumer.commitSync(targets, commitTimeout);
      for (Map.Entry<TopicPartition, OffsetAndMetadata> t : targets.entrySet()) {
        Ledger l = ledgers.get(t.getKey().partition());
        if (l != null) l.committed = Math.max(l.committed, t.getValue().offset());
      }
    } catch (RuntimeException e) {
      wire.log("commit of " + describe(targets) + " failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
    } finally {
      committing = false;
    }
  }

  /** before-commit, then the worker's commit-ok; the worker's other lines are handled meanwhile. */
  private boolean beforeCommit() {
    return commits.ask(commitOkWaitMs, commands, this::handle, "not committing");
  }


  private static String describe(Map<TopicPartition, OffsetAndMetadata> targets) {
    StringBuilder s = new StringBuilder();
    for (Map.Entry<TopicPartition, OffsetAndMetadata> t : targets.entrySet()) s.append(s.length() == 0 ? "" : " ").append("p").append(t.getKey().partition()).append('@').append(t.getValue().offset());
    return s.toString();
  }

  private int generation() {
    try {
      return consumer.groupMetadata().generationId();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private ObjectNode groupEvent(String phase, Collection<TopicPartition> partitions) {
    ObjectNode g = Wire.message("group");
    g.put("phase", phase);
    ArrayNode lanes = g.putArray("lanes");
    for (int p : new TreeSet<>(partitionsOf(partitions))) lanes.add("p" + p);
    int gen = generation();
    if (gen >= 0) g.put("generation", gen);
    return g;
  }

  private static List<Integer> partitionsOf(Collection<TopicPartition> partitions) {
    List<Integer> out = new ArrayList<>();
    for (TopicPartition tp : partitions) out.add(tp.partition());
    return out;
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      Ledger old = ledgers.get(tp.partition());
      if (old != null) old.drop();
      ledgers.put(tp.partition(), new Ledger(counts.computeIfAbsent(tp.partition(), p -> new Ledger.Counts())));
    }
    assignedOnce = true;
    wire.write(groupEvent("assigned", partitions));
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    if (partitions.isEmpty()) return;
    // What is settled is committed before the partitions move on (the service's revocation hook).
    if (!committedOnClose) commitNow();
    forget(partitions);
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    // Already owned by another member: committing would fail; the records will come again there.
    if (partitions.isEmpty()) return;
    wire.log("lost partitions " + partitionsOf(partitions) + " (the group moved on without this member)");
    forget(partitions);
  }

  private void forget(Collection<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      Ledger l = ledgers.remove(tp.partition());
      if (l != null) l.drop();
    }
    List<Integer> gone = partitionsOf(partitions);
    for (Iterator<ConsumerRecord<String, byte[]>> it = buffer.iterator(); it.hasNext(); ) if (gone.contains(it.next().partition())) it.remove();
    ObjectNode event = groupEvent("revoked", partitions);
    withdraw(event, h -> gone.contains(h.partition));
    wire.write(event);
  }
}
