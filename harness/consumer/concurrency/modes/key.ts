import type { ConcurrencyMode } from '../contract.ts';
import { Pool } from '../task-pool.ts';

/**
 * Several keys at once, one at a time per key: a key's messages queue up behind each other;
 * at most `workers` handlers run at once, and the slot is held only while a task runs.
 */
const key: ConcurrencyMode = {
  name: 'key',
  description: 'one at a time per key',
  maxInFlight: (workers) => workers,
  scheduler(workers) {
    const keyTails = new Map<string, Promise<void>>();
    return new Pool(workers, async (pool, k, task) => {
      await pool.slot();
      if (k === null) {
        void pool.runInSlot(task);
        return;
      }
      pool.releaseSlot();
      const prev = keyTails.get(k) ?? Promise.resolve();
      const mine = prev.then(async () => {
        await pool.slot();
        await pool.runInSlot(task);
      });
      keyTails.set(k, mine);
      void mine.then(() => {
        if (keyTails.get(k) === mine) keyTails.delete(k);
      });
      // Back-pressure: do not accept unbounded work for keys that are queued up.
      if (pool.inFlight > workers * 64) await pool.waitBelow(workers * 32);
    });
  },
};
export default key;
