import type { GatewayMode } from '../contract.ts';
import { nowMicros } from '../../clock.ts';

/**
 * The transactional outbox: the change and its event row are written in one transaction; one
 * relay process per lane publishes its lane's rows in id order and marks them sent after the
 * broker acked them. A relay that dies between the ack and the mark sends those rows again
 * when it restarts: duplicates, never reorders.
 */
const outbox: GatewayMode = {
  name: 'outbox',
  description: 'change and event row in one transaction; one relay per lane publishes the outbox in order',
  relay: true,
  // One relay per lane: the broker's settings must fix its lanes (partitions, hash lanes).
  unservable: (capabilities, broker) =>
    capabilities?.lanes === undefined ? `outbox runs one relay per lane, and ${broker}'s settings fix no lanes to count them by` : undefined,
  async write(store, change, lane) {
    store.commit(change.key, null, change.event, lane, true, nowMicros());
    return null;
  },
};
export default outbox;
