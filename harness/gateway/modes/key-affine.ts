import type { GatewayMode } from '../contract.ts';
import { nowMicros } from '../../clock.ts';

/**
 * A router in front sends each order id to one instance, which numbers in its write
 * transaction and publishes right after the commit, in the same turn of its event loop: one
 * writer per order, so the broker gets an order's events in commit order.
 */
const keyAffine: GatewayMode = {
  name: 'key-affine',
  description: 'a router sends each order id to one instance (one writer per order)',
  router: true,
  async write(store, change, lane) {
    return store.commit(change.key, null, change.event, lane, false, nowMicros());
  },
};
export default keyAffine;
