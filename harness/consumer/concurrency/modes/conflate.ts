import type { ConcurrencyMode } from '../contract.ts';
import { KeyQueues, QUEUE_FIELD, queueSize } from '../key-queues.ts';

/**
 * Key mode that keeps only the newest queued message of a key: when a key's turn comes, every
 * older message that queued up behind its previous one is dropped (settled `ack`, recorded with
 * effect `conflated`, counted) and only the newest is handled. Right where only the latest
 * state matters (whole-state events: an order's status, a rider's location); wrong for a
 * ledger, whose every change counts (never for a ledger). It is a mode, not a
 * strategy, because it decides which deliveries reach the store, from the queue a strategy
 * never sees; it runs beside any strategy.
 */
const conflate: ConcurrencyMode = {
  name: 'conflate',
  description: 'one at a time per key, and only the newest queued message of a key is handled (the older ones are dropped, settled and counted)',
  defence: 'hot keys: a key moves as fast as its newest state, whatever its rate; costs every dropped change (never for a ledger)',
  schema: QUEUE_FIELD,
  groups: true,
  maxInFlight: (_workers, settings) => queueSize(settings),
  scheduler(workers, context) {
    if (!context) throw new Error('conflate: needs the consumer\'s handling');
    const { handling } = context;
    return new KeyQueues(workers, async (_queue, { slot, take }) => {
      const release = await slot();
      try {
        // What queued until now: the newest supersedes the others.
        const tasks = take();
        const newest = tasks.pop()!;
        if (tasks.length) await handling.drop(tasks, newest);
        await newest();
      } finally {
        release();
      }
    });
  },
};
export default conflate;
