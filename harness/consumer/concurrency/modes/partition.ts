import type { ConcurrencyMode } from '../contract.ts';
import { Pool } from '../task-pool.ts';

/**
 * One message at a time per lane: the task runs inline, so the broker client (which waits for
 * each delivery of a lane, harness/delivery/gate.ts) hands out the lane's next message only
 * after this one was handled. A handler that blocks really blocks the client's loop.
 */
const partition: ConcurrencyMode = {
  name: 'partition',
  description: 'one at a time per lane',
  default: true,
  maxInFlight: () => 1,
  scheduler: (workers) => new Pool(workers, (pool, _key, task) => pool.runInline(task)),
};
export default partition;
