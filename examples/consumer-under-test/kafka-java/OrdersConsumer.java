import dev.convoy.ConvoyReporter;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A team's plain Java consumer (kafka-clients), under test by convoy (docs/consumer-under-test.md).
 *
 *   OrdersConsumer buggy   the poll loop hands each record to a thread pool and commits: records
 *                          of one key run on different threads, and a poll that returns several
 *                          of them (a backlog after a stall does) loses their order.
 *   OrdersConsumer fixed   each poll's records handled partition by partition, in order, and
 *                          committed once handled.
 *
 * Its connection comes from KAFKA_BOOTSTRAP_SERVERS, KAFKA_TOPIC and KAFKA_GROUP_ID.
 */
public final class OrdersConsumer {
  public static void main(String[] args) throws Exception {
    if (args.length != 1 || !(args[0].equals("buggy") || args[0].equals("fixed"))) {
      System.err.println("usage: OrdersConsumer buggy|fixed");
      System.exit(2);
    }
    boolean buggy = args[0].equals("buggy");
    Map<String, String> env = System.getenv();
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, env.get("KAFKA_BOOTSTRAP_SERVERS"));
    p.put(ConsumerConfig.GROUP_ID_CONFIG, env.get("KAFKA_GROUP_ID"));
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "orders-" + env.getOrDefault("CONVOY_PROCESS", "local"));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, env.getOrDefault("KAFKA_SESSION_TIMEOUT_MS", "30000"));
    p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, env.getOrDefault("KAFKA_HEARTBEAT_INTERVAL_MS", "3000"));
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());

    ConvoyReporter report = ConvoyReporter.open();
    KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    AtomicBoolean joined = new AtomicBoolean();
    Thread main = Thread.currentThread();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      consumer.wakeup();
      try {
        main.join(5_000);
      } catch (InterruptedException ignored) {
      }
    }));

    consumer.subscribe(List.of(env.get("KAFKA_TOPIC")), new ConsumerRebalanceListener() {
      public void onPartitionsRevoked(Collection<TopicPartition> parts) {}

      public void onPartitionsAssigned(Collection<TopicPartition> parts) {
        if (joined.compareAndSet(false, true)) report.ready();
      }
    });
    try {
      while (true) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
        if (buggy) {
          for (ConsumerRecord<String, String> r : records) pool.submit(() -> handle(report, r));
        } else {
          for (TopicPartition tp : records.partitions()) for (ConsumerRecord<String, String> r : records.records(tp)) handle(report, r);
        }
        if (!records.isEmpty()) consumer.commitSync();
      }
    } catch (WakeupException stopping) {
      // SIGTERM: the shutdown hook woke the poll.
    } finally {
      pool.shutdown();
      consumer.close();
      report.close();
    }
  }

  /** The order's database write, reported to convoy with the headers it came with. */
  private static void handle(ConvoyReporter report, ConsumerRecord<String, String> r) {
    Map<String, Object> headers = new HashMap<>();
    for (Header h : r.headers()) headers.put(h.key(), h.value());
    report.start(headers, String.valueOf(r.partition()), r.offset());
    try {
      Thread.sleep(1 + ThreadLocalRandom.current().nextInt(4));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    report.end(headers, true);
  }
}
