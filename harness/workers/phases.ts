/**
 * Where a consumer process's handling time goes, summed over every handling attempt: the
 * handler's own wait (handler time and stalls), the entity store, the history writer and the
 * settlement. `firstUs`/`lastUs` bound the busy window (first delivery received, last
 * settlement done), so the rest of the window is the client's, the delivery gate's and the concurrency mode's.
 * Read by `npm run bench -- consume`; a few clock reads per message.
 */
import type { Static } from '@sinclair/typebox';
import type { Phases } from './messages.ts';

export type ConsumerPhases = Static<typeof Phases>;

export function emptyPhases(): ConsumerPhases {
  return { deliveries: 0, handlerMs: 0, storeMs: 0, historyMs: 0, settleMs: 0, firstUs: 0, lastUs: 0 };
}
