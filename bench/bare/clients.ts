/**
 * The bare clients (bench/bare/common.ts), per Kafka client of convoy's list and role: the file
 * that runs it. A client without one shows no bare row. The Java client's bare rows are the Java
 * perf tools themselves (kafka-producer-perf-test and kafka-consumer-perf-test are the Java
 * client alone).
 */
import type { KafkaClientKind } from '../../brokers/kafka/client-defaults.ts';

export const BARE_CLIENTS: Partial<Record<KafkaClientKind, { producer?: string; consumer?: string }>> = {
  confluent: { producer: 'confluent-producer.ts', consumer: 'confluent-consumer.ts' },
  kafkajs: { producer: 'kafkajs-producer.ts', consumer: 'kafkajs-consumer.ts' },
  platformatic: { producer: 'platformatic-producer.ts', consumer: 'platformatic-consumer.ts' },
};
