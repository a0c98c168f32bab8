/** The memory broker's admin: it runs in the runner's process, beside the broker itself. */
import type { BrokerAdmin, RunNames } from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import type { MemoryBroker } from './broker.ts';
import { localInstance, type MemoryEndpoint } from './deploy.ts';
import type { MemorySettings } from './settings.ts';

export function memoryAdmin(endpoint: MemoryEndpoint, settings: MemorySettings, names: RunNames): BrokerAdmin {
  const broker = (): MemoryBroker => {
    const b = localInstance(endpoint);
    if (!b) throw new InfraError(`memory broker ${endpoint.instance} is not in this process (its admin runs in the runner)`);
    return b;
  };
  const admin: BrokerAdmin = {
    createDestinations: async () => broker().create(names.prefix),
    deleteDestinations: async () => broker().delete(names.prefix),
    close: async () => {},
    remaining: async () => {
      const { lanes, deadLetters } = broker().destination(names.prefix).remaining();
      const deliverable = Object.values(lanes).reduce((a, b) => a + b, 0);
      return { known: true, exact: true, total: deliverable + deadLetters, deliverable, lanes, detail: { deadLetters } };
    },
    lanes: async () => {
      const d = broker().destination(names.prefix);
      return Array.from({ length: d.laneCount }, (_, i) => d.laneName(i));
    },
  };
  if (settings.mode === 'partitioned') admin.addPartitions = async (total) => broker().destination(names.prefix).addLanes(total);
  if (settings.mode === 'queue' && settings.maxDeliveries > 0) admin.redriveDeadLetters = async () => broker().destination(names.prefix).redrive();
  return admin;
}
