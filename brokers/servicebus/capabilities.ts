/**
 * What the Service Bus module can do before anything starts: the local emulator is a process
 * of ours behind a proxy; the containers and external runtimes connect straight to a
 * namespace (no proxy, no process of ours). Every queue has its dead-letter sub-queue.
 */
import type { BrokerCapabilities, RuntimeKind } from '../../harness/broker/contract.ts';

export function capabilities(_s: unknown, runtime: RuntimeKind): BrokerCapabilities {
  return {
    nodes: runtime === 'local' ? ['node-1'] : [],
    links: runtime === 'local' ? ['clients'] : [],
    addPartitions: 'Service Bus queues have no partitions to add',
    redriveDeadLetters: true,
  };
}
