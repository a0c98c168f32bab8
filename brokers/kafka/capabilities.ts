/**
 * What the Kafka module can do before anything starts: every node of a local cluster can be
 * killed and has its own link; containers have the links but convoy does not kill containers;
 * an external cluster has neither (no proxy, no process of ours).
 */
import type { BrokerCapabilities, RuntimeKind } from '../../harness/broker/contract.ts';
import { isolateCapability } from '../../harness/broker/peer-links.ts';
import type { KafkaSettings } from './settings.ts';
import { nodeName } from './topology.ts';

export function capabilities(s: KafkaSettings, runtime: RuntimeKind): BrokerCapabilities {
  const ids = Array.from({ length: s.nodes }, (_, i) => nodeName(i + 1));
  return {
    nodes: runtime === 'local' ? ids : [],
    links: runtime === 'external' ? [] : ['clients', ...ids],
    addPartitions: true,
    lanes: s.topic.partitions,
    newLanesSeenAfter: { ms: s.consumer.metadataMaxAgeMs, setting: 'broker.consumer.metadataMaxAgeMs' },
    redriveDeadLetters: s.consumer.share?.deadLetterTopic
      ? true
      : 'Kafka has a dead-letter topic only for a share group (broker.consumer.groupProtocol: share, consumer.share.deadLetterTopic: true, Kafka 4.4 on); a consumer group parks poison messages by its strategy',
    isolate: isolateCapability(s, runtime),
    requestFaults: requestFaults(s, runtime),
  };
}

/** Single requests are acted on by the request proxy, which a local deployment puts on its client links. */
function requestFaults(s: KafkaSettings, runtime: RuntimeKind): true | string {
  if (runtime !== 'local') return 'only on the local runtime (an external cluster advertises its own addresses, so no proxy of convoy\'s sits on its links)';
  if (!s.requestProxy) return 'the client links have no request proxy; set broker.requestProxy: true';
  if (s.producer.acks === 0) return 'with acks 0 a Produce request has no answer to act on; set broker.producer.acks to 1 or all';
  return true;
}

