import { SETTLED_AT_ONCE, type Delivery, type Settlement } from '../../broker/contract.ts';
import { microsAt } from '../../clock.ts';
import type { ConsumerContext } from './context.ts';

/** Nothing (no promise) when the adapter settled at once (SETTLED_AT_ONCE). */
export type Settle = (d: Delivery, settlement: Settlement, grouped: boolean) => Promise<void> | void;

/**
 * Settles a handled delivery with the broker. The handling's record reaches the file before its
 * settlement reaches the broker: a process killed after the ack must not leave an acked message
 * that the history never saw handled (the checker would call it lost, and the broker's
 * redelivery rules would be blamed). A grouped ack reaches the broker only after the group is
 * written (the client's beforeCommit).
 */
export function settler(ctx: ConsumerContext): Settle {
  const { phases, settleLog: log, flushAll } = ctx;
  const settledSince = (t: number) => {
    const now = performance.now();
    phases.settleMs += now - t;
    phases.deliveries++;
    phases.lastUs = microsAt(now);
  };
  return (d, settlement, grouped) => {
    if (!grouped || settlement !== 'ack') flushAll();
    const t = performance.now();
    const settling = d.settle(settlement);
    if (settling === SETTLED_AT_ONCE) return settledSince(t);
    // Arrows passed straight on: a named one is renamed per call (tsx keeps function names).
    return settling.then(
      () => settledSince(t),
      (e: Error) => {
        log(`settle ${settlement} failed: ${e.message}`);
        settledSince(t);
      },
    );
  };
}
