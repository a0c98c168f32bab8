/**
 * A consumer under test on Kafka (docs/consumer-under-test.md): the environment that connects a
 * team's service to the run's topic and group, and the run's name for a partition it reports.
 * The group is the run's own (names.ts), so what the broker still holds for it (the drain) is
 * read from the service's committed offsets.
 */
import type { BrokerSettings, Endpoint, RunNames, ServiceLink } from '../../harness/broker/contract.ts';
import { javaClientVersion } from './client-java.ts';
import { laneOf } from './consumer-core.ts';
import { parseEndpoint } from './endpoint.ts';
import { ensureJavaLibs } from './java-build.ts';
import { groupId, topicName } from './names.ts';
import { asKafkaSettings } from './settings.ts';
import { InputError } from '../../harness/errors.ts';

export const kafkaServiceLink: ServiceLink = {
  variables: {
    KAFKA_BOOTSTRAP_SERVERS: '`host:port,...`: through Toxiproxy when convoy started the broker, so network faults reach the service',
    KAFKA_TOPIC: "the run's topic (one per run)",
    KAFKA_GROUP_ID: "the run's consumer group: use it, so the drain can read what the group still has to consume",
    KAFKA_SESSION_TIMEOUT_MS: "from the scenario's `broker.consumer`",
    KAFKA_HEARTBEAT_INTERVAL_MS: 'the same',
    KAFKA_MAX_POLL_INTERVAL_MS: 'the same, when set',
    KAFKA_JAVA_CLASSPATH: "`kafka-clients` and its logging jars, as convoy's own Java programs use them (`<dir>/*`)",
  },
  env(endpoint: Endpoint, settings: BrokerSettings, names: RunNames, log: (line: string) => void): Record<string, string> {
    const e = parseEndpoint(endpoint);
    if (e.ssl || e.sasl) throw new InputError('consumers.service: TLS and SASL connections are not handed to a consumer under test yet');
    const s = asKafkaSettings(settings);
    return {
      // Through the clients link (Toxiproxy) where convoy started the broker: network faults reach the service.
      KAFKA_BOOTSTRAP_SERVERS: e.bootstrapServers.join(','),
      KAFKA_TOPIC: topicName(names),
      KAFKA_GROUP_ID: groupId(names),
      KAFKA_SESSION_TIMEOUT_MS: String(s.consumer.sessionTimeoutMs),
      KAFKA_HEARTBEAT_INTERVAL_MS: String(s.consumer.heartbeatIntervalMs),
      ...(s.consumer.maxPollIntervalMs !== undefined ? { KAFKA_MAX_POLL_INTERVAL_MS: String(s.consumer.maxPollIntervalMs) } : {}),
      // kafka-clients and its logging, as convoy's own Java programs use them (collected once into the cache).
      KAFKA_JAVA_CLASSPATH: `${ensureJavaLibs(javaClientVersion(s, log), log)}/*`,
    };
  },
  lane: (reported: string) => (/^\d+$/.test(reported) ? laneOf(Number(reported)) : reported),
};
