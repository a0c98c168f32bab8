import type { Delivery } from '../../broker/contract.ts';
import { microsAt, nowMicros } from '../../clock.ts';
import type { Effect } from '../../consumer/entity-store.ts';
import type { ProcessEvent } from '../../history/events.ts';
import type { DecodedMessage } from '../../workload/codec.ts';
import type { ConsumerContext } from './context.ts';
import type { Holding } from './hold.ts';
import { recorder } from './record.ts';

/**
 * Applying a message to the entity store with the consumers' strategy (the others are replayed
 * after the run), and recording the handling. A failed apply (the owner did not answer) is a
 * handler error, recorded; the message goes back to the broker.
 */
export interface Apply {
  /** In the open group commit (harness/roles/consumer/group-commit.ts); false when it failed. */
  inGroup(ev: ProcessEvent, msg: DecodedMessage): boolean;
  /** In a transaction of its own: recorded (`done`), kept unsettled by the strategy (`held`), or `failed`. */
  alone(d: Delivery, ev: ProcessEvent, msg: DecodedMessage): Promise<'done' | 'held' | 'failed'>;
}

export function applier(ctx: ConsumerContext, holding: Holding): Apply {
  const { group, store, stats, phases, log, faults } = ctx;
  const record = recorder(ctx);
  const failed = (ev: ProcessEvent, e: unknown) => {
    log(`apply failed: ${(e as Error).message}`);
    ev.outcome = 'error';
    ev.end = nowMicros();
    stats.errors++;
    record(ev);
  };
  return {
    inGroup(ev, msg) {
      const t = performance.now();
      let effect: Effect;
      try {
        effect = group.apply(msg);
      } catch (e) {
        failed(ev, e);
        return false;
      }
      // One clock read for the end and the store's time (a few per message add up).
      const applied = performance.now();
      ev.effect = effect;
      if (effect !== 'applied') stats.stale++;
      ev.end = microsAt(applied);
      stats.applied++;
      phases.storeMs += applied - t;
      // Kept until the group ends, which writes the line (and counts that as the history's time).
      group.record(ev);
      return true;
    },
    async alone(d, ev, msg) {
      const t = performance.now();
      let effect;
      /** When the apply took effect: stamped before anything else of this process can run (see below). */
      let appliedAt: number | undefined;
      try {
        group.end();
        const pending = store.apply(msg);
        // A synchronous apply is stamped at once: after an await, other handlings of this
        // process (resumed together after a stall, say) apply first and this end would read
        // later than its commit; an apply that answers later stamps itself, per key.
        if (typeof pending === 'string') appliedAt = store.appliedAt(msg) ?? nowMicros();
        effect = await pending;
        appliedAt ??= store.appliedAt(msg);
      } catch (e) {
        failed(ev, e);
        return 'failed';
      }
      phases.storeMs += performance.now() - t;
      if (effect === 'held') {
        holding.hold(d, ev, msg);
        return 'held';
      }
      ev.effect = effect;
      if (ev.effect !== 'applied') stats.stale++;
      // The strategy's own stamp when it has one for this apply (taken inside its transaction).
      ev.end = appliedAt !== undefined && appliedAt >= ev.start ? appliedAt : nowMicros();
      stats.applied++;
      record(ev);
      for (const f of faults.effects()) f.afterApply?.();
      return 'done';
    },
  };
}
