import type { ConcurrencyMode } from '../contract.ts';
import { Pool } from '../task-pool.ts';

/**
 * A pool of `workers`: any message may run beside any other, of its key too (the thread-pool
 * bug: a key's messages complete out of order).
 */
const unordered: ConcurrencyMode = {
  name: 'unordered',
  description: 'a worker pool',
  maxInFlight: (workers) => workers,
  scheduler: (workers) =>
    new Pool(workers, async (pool, _key, task) => {
      await pool.slot();
      void pool.runInSlot(task);
    }),
};
export default unordered;
