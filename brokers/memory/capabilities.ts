/** What the memory broker can do before anything starts: no nodes, no network, lanes by topology. */
import type { BrokerCapabilities } from '../../harness/broker/contract.ts';
import type { MemorySettings } from './settings.ts';

export function capabilities(s: MemorySettings): BrokerCapabilities {
  return {
    nodes: [],
    links: [],
    addPartitions: s.mode === 'partitioned' ? true : 'a memory queue has one lane (mode: queue); use mode: partitioned',
    lanes: s.mode === 'partitioned' ? s.partitions : 1,
    redriveDeadLetters: s.mode === 'queue' && s.maxDeliveries > 0 ? true : 'the memory broker dead-letters only in mode: queue with maxDeliveries > 0',
    resend: 'the memory broker answers every send in process and has no link a fault could slow: an ack timeout would time the harness\'s own IPC, and no send ends unknown',
  };
}
