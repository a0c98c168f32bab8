import type { ConcurrencyMode } from '../contract.ts';
import { KeyQueues, QUEUE_FIELD, queueSize } from '../key-queues.ts';

const DEFAULT_MAX = 50;

/**
 * Key mode that applies a key's queued messages together: when a key's turn comes it takes up
 * to `batchMax` of them (waiting up to `batchLingerMs` from the oldest's arrival for the batch
 * to fill) and handles them as one: one handler time, their applies in one store transaction,
 * in arrival order (say, 50 queued events applied in one write). The scenario's handler
 * time is then the cost of one write, paid once per batch. Gains throughput on a hot key; a
 * message pays with the wait for its batch (the linger) and for the whole batch's write. It is
 * a mode, not a strategy: it decides which deliveries share a transaction, from the key's queue,
 * and runs beside any strategy.
 */
const batch: ConcurrencyMode = {
  name: 'batch',
  description: 'one batch at a time per key: up to batchMax queued messages of a key handled as one (one handler time, one store transaction)',
  defence: 'hot keys: a key moves up to batchMax times faster; costs latency (the linger, and the whole batch\'s write)',
  groups: true,
  schema: {
    ...QUEUE_FIELD,
    batchMax: { type: 'integer', minimum: 1, maximum: 10_000, description: `batch: most messages of a key handled as one. Default ${DEFAULT_MAX}.` },
    batchLingerMs: {
      type: 'number',
      minimum: 0,
      maximum: 60_000,
      description: 'batch: how long a key\'s turn waits, from the arrival of its oldest queued message, for the batch to fill (milliseconds). Default 0: take what has queued.',
    },
  },
  maxInFlight: (_workers, settings) => queueSize(settings),
  scheduler(workers, context) {
    if (!context) throw new Error('batch: needs the consumer\'s handling');
    const { handling, settings } = context;
    const max = typeof settings.batchMax === 'number' ? settings.batchMax : DEFAULT_MAX;
    const lingerMs = typeof settings.batchLingerMs === 'number' ? settings.batchLingerMs : 0;
    return new KeyQueues(workers, async (queue, { slot, more, take }) => {
      // Linger without holding a worker: other keys' batches run meanwhile.
      for (let left = lingerMs - (performance.now() - queue[0]!.at); queue.length < max && left > 0; left = lingerMs - (performance.now() - queue[0]!.at)) await more(left);
      const release = await slot();
      try {
        const tasks = take(max);
        if (tasks.length === 1) await tasks[0]!();
        else await handling.together(tasks);
      } finally {
        release();
      }
    });
  },
};
export default batch;
