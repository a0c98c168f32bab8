/** What the Pub/Sub module can do before anything starts (see harness/broker/contract.ts). */
import type { BrokerCapabilities, RuntimeKind } from '../../harness/broker/contract.ts';
import type { PubsubSettings } from './settings.ts';

export function capabilities(s: PubsubSettings, runtime: RuntimeKind): BrokerCapabilities {
  return {
    nodes: runtime === 'local' ? ['node-1'] : [],
    links: ['clients'],
    addPartitions: 'Pub/Sub topics have no partitions to add',
    redriveDeadLetters: s.deadLetter.enabled ? true : 'this scenario has no dead-letter topic (set broker.deadLetter.enabled: true)',
  };
}
