package convoy.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.Properties;

/**
 * convoy's Java client: Apache Kafka's own Java client (kafka-clients) behind convoy's client
 * protocol (docs/client-protocol.md), one process per producer or consumer of a run. The
 * socket's reader is this thread: it answers pings at once, hands sends to the producer (which
 * is thread-safe) and every other line of a consumer to its poll thread.
 */
public final class Main {
  private static final int PROTOCOL = 1;

  public static void main(String[] args) {
    ClientLog log = ClientLog.install();
    String path = System.getenv("CONVOY_CLIENT_SOCKET");
    if (path == null || path.isEmpty()) {
      System.err.println("convoy java client: CONVOY_CLIENT_SOCKET is not set (the worker that starts it sets it)");
      System.exit(2);
    }
    Wire wire;
    try {
      wire = Wire.connect(path);
    } catch (Exception e) {
      System.err.println("convoy java client: cannot connect to " + path + ": " + e.getMessage());
      System.exit(2);
      return;
    }
    log.attach(wire);
    try {
      new Main().serve(wire, log);
      wire.flushAndClose(5_000);
      System.exit(0);
    } catch (Throwable t) {
      // The socket closed under the reader because the poll thread closed it: a clean end.
      if (wire.isClosed()) System.exit(0);
      fatal(wire, t);
    }
  }

  static void fatal(Wire wire, Throwable t) {
    ObjectNode f = Wire.message("fatal");
    f.put("message", t.getClass().getSimpleName() + ": " + t.getMessage());
    ArrayNode lines = f.putArray("log");
    StringWriter trace = new StringWriter();
    t.printStackTrace(new PrintWriter(trace));
    String[] all = trace.toString().split("\n");
    for (int i = 0; i < Math.min(all.length, 12); i++) lines.add(all[i]);
    wire.write(f);
    wire.flushAndClose(2_000);
    System.exit(1);
  }

  static void reply(Wire wire, JsonNode request, Map<String, Integer> errorsSeen) {
    ObjectNode r = Wire.message("reply");
    r.put("id", request.path("id").asLong());
    if ("errors-seen".equals(request.path("what").asText())) r.set("result", Wire.JSON.valueToTree(errorsSeen));
    else r.put("error", "this client cannot " + request.path("what").asText());
    wire.write(r);
  }

  /** kafka-clients' version, from the properties file its jar carries. */
  private static String kafkaClientsVersion() {
    try (InputStream in = Main.class.getResourceAsStream("/kafka/kafka-version.properties")) {
      Properties p = new Properties();
      if (in != null) p.load(in);
      return p.getProperty("version", "unknown");
    } catch (Exception e) {
      return "unknown";
    }
  }

  private void serve(Wire wire, ClientLog log) throws Exception {
    ObjectNode hello = Wire.message("hello");
    hello.put("protocol", PROTOCOL);
    ObjectNode client = hello.putObject("client");
    client.put("name", "kafka-clients");
    client.put("version", kafkaClientsVersion());
    hello.putArray("capabilities").add("errors-seen").add("commits-later").add("headers");
    hello.put("clockUs", Wire.clockUs());
    wire.write(hello);

    JsonNode configure = nextOf(wire, "configure");
    Settings settings = new Settings(configure);
    if (settings.role.equals("producer")) serveProducer(wire, log, settings);
    else serveConsumer(wire, log, settings);
    wire.write(Wire.message("closed"));
  }

  /** Reads until a line of the given type (answering pings on the way); null when the socket closed. */
  private static JsonNode nextOf(Wire wire, String type) throws Exception {
    JsonNode m;
    while ((m = wire.read()) != null) {
      if (type.equals(m.path("type").asText())) return m;
      if (!pong(wire, m)) throw new IllegalStateException("expected " + type + ", got " + m.path("type").asText());
    }
    System.exit(0); // the worker is gone: never linger
    return null;
  }

  private static boolean pong(Wire wire, JsonNode m) {
    if (!"ping".equals(m.path("type").asText())) return false;
    ObjectNode p = Wire.message("pong");
    p.put("id", m.path("id").asLong());
    p.put("clockUs", Wire.clockUs());
    wire.write(p);
    return true;
  }

  private void serveProducer(Wire wire, ClientLog log, Settings settings) throws Exception {
    ProducerRole producer = new ProducerRole(settings, wire, log);
    wire.write(Wire.message("ready"));
    JsonNode m;
    while ((m = wire.read()) != null) {
      if (pong(wire, m)) continue;
      switch (m.path("type").asText()) {
        case "send":
          producer.send(m.path("id").asLong(), m.path("key").asText(), m.path("payload").binaryValue(), m.path("headers"));
          break;
        case "request":
          reply(wire, m, producer.errorsSeen());
          break;
        case "close":
          producer.close();
          return;
        default:
          break;
      }
    }
    System.exit(0);
  }

  private void serveConsumer(Wire wire, ClientLog log, Settings settings) throws Exception {
    PollRole consumer = settings.shareGroup() ? new ShareConsumerRole(settings, wire) : new ConsumerRole(settings, wire, log);
    // The poll thread owns the consumer and ends the process once it closed; this thread reads
    // the socket and hands lines over, during the close too (its last commit waits for commit-ok).
    Thread poller = new Thread(() -> {
      try {
        consumer.join(60_000);
        wire.write(Wire.message("ready"));
        consumer.run();
        wire.write(Wire.message("closed"));
        wire.flushAndClose(5_000);
        System.exit(0);
      } catch (Throwable t) {
        fatal(wire, t);
      }
    }, "convoy-poll");
    poller.start();
    JsonNode m;
    while ((m = wire.read()) != null) {
      if (!pong(wire, m)) consumer.command(m);
    }
    System.exit(0); // the worker is gone: never linger
  }
}
