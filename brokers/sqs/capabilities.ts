/** What the SQS module can do before anything starts (see harness/broker/contract.ts). */
import type { BrokerCapabilities, RuntimeKind } from '../../harness/broker/contract.ts';
import type { SqsSettings } from './settings.ts';

export function capabilities(s: SqsSettings, runtime: RuntimeKind): BrokerCapabilities {
  return {
    nodes: runtime === 'local' ? ['node-1'] : [],
    links: ['clients'],
    addPartitions: 'SQS queues have no partitions to add',
    redriveDeadLetters: s.deadLetter.enabled ? true : 'this scenario has no dead-letter queue (set broker.deadLetter.enabled: true)',
  };
}
