package convoy.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicAuthorizationException;

/** The producer side: each `send` is one record; its callback answers with an ack or a failure. */
final class ProducerRole {
  private final Settings settings;
  private final Wire wire;
  private final ClientLog log;
  private final KafkaProducer<String, byte[]> producer;

  ProducerRole(Settings settings, Wire wire, ClientLog log) {
    this.settings = settings;
    this.wire = wire;
    this.log = log;
    this.producer = new KafkaProducer<>(settings.producerProperties());
    // The topic's metadata before the first send, which would otherwise block on it.
    producer.partitionsFor(settings.topic);
  }

  /** Refused by the broker before anything was appended, on every attempt alike. */
  private static boolean definite(Exception e) {
    return e instanceof RecordTooLargeException
        || e instanceof RecordBatchTooLargeException
        || e instanceof InvalidRecordException
        || e instanceof InvalidTopicException
        || e instanceof TopicAuthorizationException;
  }

  /** One record; `headers` (a JSON object, or missing) are convoy's fields for a consumer under test, as record headers. */
  void send(long id, String key, byte[] payload, JsonNode headers) {
    try {
      ProducerRecord<String, byte[]> record = new ProducerRecord<>(settings.topic, key, payload);
      headers.fields().forEachRemaining(h -> record.headers().add(h.getKey(), h.getValue().asText().getBytes(StandardCharsets.UTF_8)));
      producer.send(record, (meta, err) -> {
        if (err == null) {
          ObjectNode ack = Wire.message("ack");
          ack.put("id", id);
          ack.put("lane", "p" + meta.partition());
          if (meta.hasOffset()) ack.put("offset", meta.offset());
          ack.put("at", Wire.clockUs());
          wire.write(ack);
        } else {
          failure(id, err, definite(err));
        }
      });
    } catch (RuntimeException e) {
      // Refused before it was queued (too large, buffer full past max.block.ms): nothing was sent.
      failure(id, e, true);
    }
  }

  private void failure(long id, Exception e, boolean definite) {
    ObjectNode f = Wire.message("failure");
    f.put("id", id);
    f.put("message", e.getClass().getSimpleName() + ": " + e.getMessage());
    f.put("definite", definite);
    f.put("at", Wire.clockUs());
    wire.write(f);
  }

  Map<String, Integer> errorsSeen() {
    return log.errorsSeen();
  }

  void close() {
    producer.close(Duration.ofSeconds(5));
  }
}
