/** What the RabbitMQ module can do before anything starts (see harness/broker/contract.ts). */
import type { BrokerCapabilities, RuntimeKind } from '../../harness/broker/contract.ts';
import { isolateCapability } from '../../harness/broker/peer-links.ts';
import type { RabbitSettings } from './settings.ts';

export function capabilities(s: RabbitSettings, runtime: RuntimeKind): BrokerCapabilities {
  return {
    // Only the local node is a process of ours; the external runtime keeps a proxy in front.
    nodes: runtime === 'local' ? Array.from({ length: s.nodes }, (_, i) => `node-${i + 1}`) : [],
    links: ['clients'],
    addPartitions: `RabbitMQ queues have no partitions to add (topology ${s.topology}${s.topology === 'hash-lanes' ? `, a fixed ${s.lanes} lanes` : ''})`,
    lanes: s.lanes,
    redriveDeadLetters: s.deadLetter.enabled ? true : 'this scenario has no dead-letter queue (set broker.deadLetter.enabled: true)',
    isolate: isolateCapability(s, runtime),
  };
}

