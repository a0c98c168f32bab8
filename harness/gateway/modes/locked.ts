import type { GatewayMode } from '../contract.ts';
import { nowMicros } from '../../clock.ts';

/**
 * The version is incremented in the same transaction as the change; the instance that
 * committed publishes after its commit. Versions are right; the publish order across instances
 * is not the commit order.
 */
const locked: GatewayMode = {
  name: 'locked',
  description: 'version incremented in the write transaction; published after commit by the committing instance',
  async write(store, change, lane) {
    return store.commit(change.key, null, change.event, lane, false, nowMicros());
  },
};
export default locked;
