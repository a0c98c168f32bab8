package convoy.proxy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One client connection and its connection to the broker. Requests and responses are framed by
 * their size prefix; each request's API, version and correlation id (the header's first 8 bytes)
 * are noted, so responses (matched by correlation id) leave in request order even when one is
 * held, rewritten or answered by the proxy itself. While no rule is active, frames pass
 * unchanged and nothing is decoded.
 */
final class Link {
  private static final int MAX_FRAME = 256 * 1024 * 1024;

  private final int id;
  private final String name;
  private final Socket client;
  private final Socket broker;
  private final Rules rules;
  private final ScheduledExecutorService timers;
  private final OutputStream toClient;
  private final OutputStream toBroker;
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();

  /** A request whose response is owed to the client, in request order. */
  private static final class Pending {
    final int correlationId;
    final short apiKey;
    final short version;
    /** The parsed request header, when a rule acts on the response. */
    RequestHeader header;
    Rule rewrite;
    /** A hold on a Fetch answer: its records are counted (and recorded) when the broker answers. */
    Rule heldFetch;
    /** Partitions refused before the append, to be added to the broker's response. */
    List<Codec.TopicPartitionRef> refused;
    Rule refusedBy;
    ByteBuffer response;
    long notBefore;

    Pending(int correlationId, short apiKey, short version) {
      this.correlationId = correlationId;
      this.apiKey = apiKey;
      this.version = version;
    }
  }

  Link(int id, String name, Socket client, Socket broker, Rules rules, ScheduledExecutorService timers) throws IOException {
    this.id = id;
    this.name = name;
    this.client = client;
    this.broker = broker;
    this.rules = rules;
    this.timers = timers;
    // Buffered, so a frame's size prefix and body leave in one write (flushed per frame).
    this.toClient = new java.io.BufferedOutputStream(client.getOutputStream(), 65536);
    this.toBroker = new java.io.BufferedOutputStream(broker.getOutputStream(), 65536);
  }

  void start() {
    Thread up = new Thread(this::requests, "proxy-" + name + "-" + id + "-up");
    Thread down = new Thread(this::responses, "proxy-" + name + "-" + id + "-down");
    up.setDaemon(true);
    down.setDaemon(true);
    up.start();
    down.start();
  }

  private static ByteBuffer readFrame(DataInputStream in) throws IOException {
    int size = in.readInt();
    if (size < 0 || size > MAX_FRAME) throw new IOException("frame of " + size + " bytes");
    byte[] b = new byte[size];
    in.readFully(b);
    return ByteBuffer.wrap(b);
  }

  /** The size prefix and the frame, straight from the frame's array when it has one (no copy). */
  private static void writeFrame(OutputStream out, ByteBuffer frame) throws IOException {
    int n = frame.remaining();
    out.write(new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
    if (frame.hasArray()) {
      out.write(frame.array(), frame.arrayOffset() + frame.position(), n);
    } else {
      byte[] b = new byte[n];
      frame.duplicate().get(b);
      out.write(b);
    }
    out.flush();
  }

  private void requests() {
    try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(client.getInputStream(), 65536))) {
      while (true) {
        ByteBuffer frame = readFrame(in);
        short apiKey = frame.getShort(0);
        short version = frame.getShort(2);
        int correlationId = frame.getInt(4);
        Pending p = new Pending(correlationId, apiKey, version);
        int inFlight;
        synchronized (this) {
          pending.addLast(p);
          inFlight = pending.size();
        }
        ByteBuffer forward = rules.active() ? act(p, frame, inFlight) : frame;
        if (forward != null) {
          synchronized (toBroker) {
            writeFrame(toBroker, forward);
          }
        }
        flush();
      }
    } catch (EOFException e) {
      // the client closed
    } catch (IOException e) {
      // the connection broke
    } finally {
      close();
    }
  }

  /** Applies the rules that select this request; returns what to forward (null: nothing). */
  private ByteBuffer act(Pending p, ByteBuffer frame, int inFlight) {
    ApiKeys api;
    try {
      api = ApiKeys.forId(p.apiKey);
    } catch (IllegalArgumentException e) {
      return frame;
    }
    for (Rule rule : rules.matching(api)) {
      if (!rule.onLink(name)) continue;
      if (!api.isVersionSupported(p.version)) {
        rules.warnOnce(api + " v" + p.version + " is newer than this proxy's codec; passed through untouched");
        return frame;
      }
      RequestHeader header;
      try {
        header = Codec.header(frame);
      } catch (RuntimeException e) {
        rules.warnOnce("could not decode a " + api + " v" + p.version + " request header (" + e.getMessage() + "); passed through untouched");
        return frame;
      }
      if (rule.client != null && !rule.client.equals(header.clientId())) continue;
      List<Codec.TopicPartitionRef> selected = new ArrayList<>();
      if (api == ApiKeys.PRODUCE && rule.wantsPartitions()) {
        ProduceRequestData data = Codec.produce(frame);
        for (Codec.TopicPartitionRef r : Codec.partitions(data)) if (rule.partitionSelected(rules.topicName(r), r.partition())) selected.add(r);
        if (selected.isEmpty()) continue;
      } else if (api == ApiKeys.PRODUCE && rule.action == Rule.Action.REJECT) {
        selected.addAll(Codec.partitions(Codec.produce(frame)));
      }
      if (!rule.positionSelects(id, inFlight)) continue;
      if (api == ApiKeys.OFFSET_COMMIT && rule.action == Rule.Action.REJECT) {
        // The group refuses the commit: answered here, so the broker never stores these offsets.
        ObjectNode e = evidence(rule, api, p, header, selected, inFlight);
        e.put("original", "not forwarded (the group never stored these offsets)");
        e.put("injected", rule.error.name());
        p.notBefore = System.currentTimeMillis() + rule.holdMs;
        synchronized (this) {
          p.response = Codec.offsetCommitErrorResponse(frame, p.correlationId, p.version, rule.error);
        }
        rule.record(e);
        return null;
      }
      ObjectNode e = evidence(rule, api, p, header, selected, inFlight);
      p.notBefore = System.currentTimeMillis() + rule.holdMs;
      if (rule.action == Rule.Action.REJECT) {
        p.refused = selected;
        p.refusedBy = rule;
        e.put("original", "not forwarded (the broker never saw these partitions)");
        e.put("injected", rule.error.name());
        rule.record(e);
        ByteBuffer rest = Codec.withoutPartitions(frame, (t, part) -> selected.stream().anyMatch(r -> Codec.sameTopic(t.name(), t.topicId(), r) && r.partition() == part));
        if (rest == null) {
          synchronized (this) {
            p.response = Codec.produceErrorResponse(p.correlationId, p.version, selected, rule.error);
            p.refused = null;
          }
          return null;
        }
        p.header = header;
        return rest;
      }
      if (rule.action == Rule.Action.REWRITE) {
        p.header = header;
        p.rewrite = rule;
        // The original error is known once the broker answered: recorded then.
        rule.pendingEvidence.put(p.correlationId + "@" + id, e);
        return frame;
      }
      e.put("holdMs", rule.holdMs);
      if (api == ApiKeys.FETCH) {
        // What the held answer carries is known once the broker answered: recorded then.
        p.header = header;
        p.heldFetch = rule;
        rule.pendingEvidence.put(p.correlationId + "@" + id, e);
        return frame;
      }
      rule.record(e);
      return frame;
    }
    return frame;
  }

  private ObjectNode evidence(Rule rule, ApiKeys api, Pending p, RequestHeader header, List<Codec.TopicPartitionRef> selected, int inFlight) {
    ObjectNode e = JsonNodeFactory.instance.objectNode();
    e.put("atMs", System.currentTimeMillis());
    e.put("link", name + "#" + id);
    e.put("client", header.clientId());
    e.put("api", api.name);
    e.put("version", p.version);
    e.put("correlationId", p.correlationId);
    e.put("inFlight", inFlight);
    if (!selected.isEmpty()) {
      var parts = e.putArray("partitions");
      for (Codec.TopicPartitionRef r : selected) parts.add(rules.topicName(r) + "-" + r.partition());
    }
    if (rule.holdMs > 0) e.put("holdMs", rule.holdMs);
    return e;
  }

  private void responses() {
    try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(broker.getInputStream(), 65536))) {
      while (true) {
        ByteBuffer frame = readFrame(in);
        int correlationId = frame.getInt(0);
        Pending p = null;
        synchronized (this) {
          for (Pending q : pending) {
            if (q.correlationId == correlationId && q.response == null) {
              p = q;
              break;
            }
          }
        }
        if (p == null) {
          // Not a request we noted (cannot happen with a well-behaved broker): pass it on.
          synchronized (toClient) {
            writeFrame(toClient, frame);
          }
          continue;
        }
        ByteBuffer out = frame;
        if (p.rewrite != null || p.refused != null) out = alter(p, frame);
        else if (p.heldFetch != null) countHeld(p, frame);
        synchronized (this) {
          p.response = out;
        }
        flush();
      }
    } catch (IOException e) {
      // the broker side closed or broke
    } finally {
      close();
    }
  }

  private ByteBuffer alter(Pending p, ByteBuffer frame) {
    ApiKeys api = ApiKeys.forId(p.apiKey);
    try {
      AbstractResponse response = Codec.response(frame, p.header);
      if (p.refused != null && response.data() instanceof ProduceResponseData data) Codec.addErrors(data, p.refused, p.refusedBy.error);
      if (p.rewrite != null) {
        Rule rule = p.rewrite;
        List<String> changed = Codec.rewrite(response, ref -> rule.partitionSelected(rules.topicName(ref), ref.partition()), rules::topicName, rule.error);
        ObjectNode e = rule.pendingEvidence.remove(p.correlationId + "@" + id);
        if (e != null) {
          var orig = e.putArray("original");
          changed.forEach(orig::add);
          e.put("injected", rule.error.name());
          rule.record(e);
        }
      }
      return Codec.frame(p.correlationId, api, p.version, response.data());
    } catch (RuntimeException ex) {
      rules.warnOnce("could not alter a " + api + " v" + p.version + " response (" + ex + "); passed through untouched");
      return frame;
    }
  }

  private void countHeld(Pending p, ByteBuffer frame) {
    Rule rule = p.heldFetch;
    ObjectNode e = rule.pendingEvidence.remove(p.correlationId + "@" + id);
    java.util.Map<String, Integer> records;
    try {
      records = Codec.fetchedRecords(Codec.response(frame, p.header), rules::topicName);
    } catch (RuntimeException ex) {
      rules.warnOnce("could not read a Fetch v" + p.version + " answer's records (" + ex + "); held without counting them");
      records = java.util.Map.of();
    }
    rule.held(records);
    if (e != null) {
      ObjectNode r = e.putObject("records");
      records.forEach(r::put);
      rule.record(e);
    }
  }

  /** Sends every response at the head that is due, in request order; schedules the next due one. */
  private void flush() {
    long wait = -1;
    // One sender at a time, from taking the due responses to writing them: order is kept.
    synchronized (toClient) {
      List<ByteBuffer> due = new ArrayList<>();
      synchronized (this) {
        long now = System.currentTimeMillis();
        while (!pending.isEmpty() && pending.peekFirst().response != null) {
          Pending head = pending.peekFirst();
          if (head.notBefore > now) {
            wait = head.notBefore - now;
            break;
          }
          due.add(pending.pollFirst().response);
        }
      }
      try {
        for (ByteBuffer f : due) writeFrame(toClient, f);
      } catch (IOException e) {
        close();
        return;
      }
    }
    if (wait >= 0) timers.schedule(this::flush, wait, TimeUnit.MILLISECONDS);
  }

  void close() {
    try {
      client.close();
    } catch (IOException ignored) {
    }
    try {
      broker.close();
    } catch (IOException ignored) {
    }
    rules.closed(this);
  }
}
