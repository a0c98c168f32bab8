import type { GatewayMode } from '../contract.ts';
import { nowMicros } from '../../clock.ts';

/**
 * Numbering outside the write: whichever instance gets the request reads the order's highest version
 * and adds one, outside any transaction, then writes and publishes. Two instances working on
 * one order read the same version (duplicate versions), and publish in arrival order, not in
 * the order their writes committed (reorders).
 */
const direct: GatewayMode = {
  name: 'direct',
  description: "read the order's version + 1 outside a transaction, write, publish (two instances can race)",
  async write(store, change, lane) {
    const version = store.nextVersion(change.key);
    // A service's database answers over the network: other requests run before the write.
    await new Promise<void>((r) => setImmediate(r));
    return store.commit(change.key, version, change.event, lane, false, nowMicros());
  },
};
export default direct;
