import type { GatewayMode } from '../contract.ts';
import { nowMicros } from '../../clock.ts';

/**
 * The transactional outbox: the change and its event row are written in one transaction; one
 * relay process per lane publishes its lane's rows in id order and marks them sent after the
 * broker acked them. A relay that dies between the ack and the mark sends those rows again
 * when it restarts: duplicates, never reorders. On a broker whose lanes are the keys (SQS FIFO
 * groups, Service Bus sessions, Pub/Sub ordering keys) `workload.gateway.relays` says how many
 * relays split the keys (laneOf(key, relays)): one relay still publishes each key in commit order.
 */
const outbox: GatewayMode = {
  name: 'outbox',
  description: 'change and event row in one transaction; one relay per lane (or per share of the keys, workload.gateway.relays) publishes the outbox in order',
  relay: true,
  // One relay per lane: the broker's settings fix its lanes (partitions, hash lanes), or the scenario says how many relays.
  unservable: (capabilities, broker, relays) =>
    capabilities?.lanes === undefined && relays === undefined
      ? `outbox runs one relay per lane, and ${broker}'s settings fix no lanes to count them by; set workload.gateway.relays (the relays split the keys)`
      : undefined,
  async write(store, change, lane) {
    store.commit(change.key, null, change.event, lane, true, nowMicros());
    return null;
  },
};
export default outbox;
