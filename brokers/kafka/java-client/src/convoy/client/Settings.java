package convoy.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The worker's `configure` line as Kafka client properties. The settings are convoy's resolved
 * Kafka settings (brokers/kafka/settings.ts), so every value is present unless it is optional;
 * an optional one left out leaves the client's own default.
 */
final class Settings {
  final String role;
  final String id;
  final String topic;
  final String group;
  final String clientId;
  final int maxInFlight;
  final JsonNode producer;
  final JsonNode consumer;
  final String bootstrap;
  /**
   * The connection's own properties (security.protocol, sasl.*, ssl.*) and the user's
   * pass-through ones, as brokers/kafka/client-config.ts made them: every client gets them.
   */
  final Properties connection = new Properties();

  Settings(JsonNode configure) {
    role = configure.path("role").asText();
    id = configure.path("id").asText();
    String prefix = configure.path("names").path("prefix").asText();
    // A pre-created topic (the external runtime's topic.name), else the run's own.
    JsonNode named = configure.path("endpoint").path("topic");
    topic = named.isTextual() ? named.asText() : prefix;
    configure.path("endpoint").path("javaProperties").fields().forEachRemaining(e -> connection.put(e.getKey(), e.getValue().asText()));
    group = prefix + "-group";
    clientId = prefix + "-" + id;
    maxInFlight = configure.path("maxInFlight").asInt(1);
    JsonNode settings = configure.path("settings");
    producer = settings.path("producer");
    consumer = settings.path("consumer");
    List<String> servers = new ArrayList<>();
    for (JsonNode s : configure.path("endpoint").path("bootstrapServers")) servers.add(s.asText());
    if (servers.isEmpty()) throw new IllegalArgumentException("configure.endpoint.bootstrapServers is empty");
    bootstrap = String.join(",", servers);
  }

  private static void optional(Properties props, String name, JsonNode node) {
    if (!node.isMissingNode() && !node.isNull()) props.put(name, node.asText());
  }

  Properties producerProperties() {
    Properties p = new Properties();
    p.putAll(connection);
    p.put("bootstrap.servers", bootstrap);
    p.put("client.id", clientId);
    p.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
    p.put("value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
    int acks = producer.path("acks").asInt(-1);
    p.put("acks", acks == -1 ? "all" : Integer.toString(acks));
    optional(p, "enable.idempotence", producer.path("idempotent"));
    optional(p, "max.in.flight.requests.per.connection", producer.path("maxInFlight"));
    optional(p, "retries", producer.path("retries"));
    optional(p, "linger.ms", producer.path("lingerMs"));
    optional(p, "batch.size", producer.path("batchSize"));
    optional(p, "request.timeout.ms", producer.path("requestTimeoutMs"));
    optional(p, "delivery.timeout.ms", producer.path("deliveryTimeoutMs"));
    optional(p, "metadata.max.age.ms", producer.path("metadataMaxAgeMs"));
    JsonNode backoff = producer.path("retryBackoffMs");
    if (backoff.isNumber()) {
      // A backoff the scenario sets stays fixed; the client's default grows from 100 ms to 1 s.
      p.put("retry.backoff.ms", backoff.asText());
      p.put("retry.backoff.max.ms", backoff.asText());
    }
    if (producer.path("ignoreKeys").asBoolean(false)) p.put("partitioner.ignore.keys", "true");
    return p;
  }

  boolean shareGroup() {
    return "share".equals(consumer.path("groupProtocol").asText("classic"));
  }

  JsonNode share() {
    return consumer.path("share");
  }

  /** What every group member's properties start with: where, who, which group, how records decode. */
  private Properties memberProperties() {
    Properties p = new Properties();
    p.putAll(connection);
    p.put("bootstrap.servers", bootstrap);
    p.put("client.id", clientId);
    p.put("group.id", group);
    p.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    p.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
    return p;
  }

  /** A share group's KafkaShareConsumer: its group settings are group configs (set by the admin API). */
  Properties shareConsumerProperties() {
    Properties p = memberProperties();
    p.put("share.acknowledgement.mode", share().path("acknowledgement").asText("explicit"));
    JsonNode max = consumer.path("maxPollRecords");
    if (max.isNumber()) {
      p.put("max.poll.records", max.asText());
      // max.poll.records as a limit on what one poll acquires, not a hint (KIP-1206).
      p.put("share.acquire.mode", "record_limit");
    }
    return p;
  }

  boolean consumerProtocol() {
    return "consumer".equals(consumer.path("groupProtocol").asText("classic"));
  }

  /** staticMembership: true (every consumer process), or the names of the static ones. */
  boolean staticMember() {
    JsonNode s = consumer.path("staticMembership");
    if (s.isArray()) {
      for (JsonNode name : s) if (id.equals(name.asText())) return true;
      return false;
    }
    return s.asBoolean(false);
  }

  Properties consumerProperties() {
    Properties p = memberProperties();
    // Offsets are committed by settlement (the settled prefix), never by the fetch position.
    p.put("enable.auto.commit", "false");
    p.put("auto.offset.reset", consumer.path("fromBeginning").asBoolean(true) ? "earliest" : "latest");
    optional(p, "metadata.max.age.ms", consumer.path("metadataMaxAgeMs"));
    optional(p, "max.poll.interval.ms", consumer.path("maxPollIntervalMs"));
    optional(p, "max.poll.records", consumer.path("maxPollRecords"));
    if (staticMember()) p.put("group.instance.id", clientId);
    if (consumerProtocol()) {
      // KIP-848: the session timeout and heartbeat interval are the group's (set by the admin API).
      p.put("group.protocol", "consumer");
      optional(p, "group.remote.assignor", consumer.path("assignor"));
    } else {
      p.put("group.protocol", "classic");
      optional(p, "session.timeout.ms", consumer.path("sessionTimeoutMs"));
      optional(p, "heartbeat.interval.ms", consumer.path("heartbeatIntervalMs"));
      JsonNode assignor = consumer.path("assignor");
      if (assignor.isTextual()) p.put("partition.assignment.strategy", assignorClass(assignor.asText()));
    }
    return p;
  }

  static String assignorClass(String name) {
    switch (name) {
      case "range": return "org.apache.kafka.clients.consumer.RangeAssignor";
      case "roundrobin": return "org.apache.kafka.clients.consumer.RoundRobinAssignor";
      case "sticky": return "org.apache.kafka.clients.consumer.StickyAssignor";
      case "cooperative-sticky": return "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
      default: throw new IllegalArgumentException("unknown classic assignor " + name);
    }
  }
}
