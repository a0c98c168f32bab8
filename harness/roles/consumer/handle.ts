import type { ConsumerClient, Delivery, Settlement } from '../../broker/contract.ts';
import { nowMicros, sleep } from '../../clock.ts';
import type { HandlerEffect } from '../../faults/contract.ts';
import type { DecodedMessage } from '../../workload/codec.ts';
import type { Apply } from './apply.ts';
import type { ConsumerContext } from './context.ts';
import { processBase } from './grouped-handling.ts';
import { deliveryEvent, processEvent, type ProcessBase } from './process-event.ts';
import { recorder } from './record.ts';
import type { Settle } from './settle.ts';

/** Nothing (no promise) when the handling finished before it returned (the usual path, below). */
export type Handle = (d: Delivery, msg: DecodedMessage | null, received: number) => Promise<void> | void;

/**
 * Handles one delivery: each attempt waits the handler time and any fault holding handlers,
 * fails when a fault says so, asks the poison policy, applies (in the open group, or alone),
 * records one process event, and retries after the policy's delay; then settles. One event per
 * attempt.
 */
export function handler(ctx: ConsumerContext, client: ConsumerClient, apply: Apply, settle: Settle): Handle {
  const { init, spec, stats, phases, poison, faults, handlerTime, lot, store } = ctx;
  const record = recorder(ctx);
  // Grouped only while no fault acts in this worker: a fault's hooks (a kill after the apply,
  // a failing handler) see each message's effects written, as they were designed against.
  // And only for a pure strategy: one that holds or reads its owner answers later.
  // And only on a store whose programs end at once (SQLite): a group is one open transaction.
  const groupable = () => client.commitsLater === true && store.strategy.pure && store.synchronous && !faults.acting;

  const slowly = async (d: Delivery, msg: DecodedMessage | null, received: number): Promise<void> => {
    const base: ProcessBase = processBase(init.id, d, msg);
    let settlement: Settlement = 'ack';
    let grouped = false;
    for (let attempt = 1; ; attempt++) {
      const start = nowMicros();
      const decision = msg ? poison.decide(msg.key, msg.seq, msg.poison, attempt) : { action: 'give-up' as const, settle: 'dead-letter' as const };
      const t = performance.now();
      // No timer for a 0 ms handler: setTimeout(0) waits at least 1 ms, which held a lane
      // to about 700 messages per second.
      const ms = handlerTime();
      if (ms > 0) await sleep(ms);
      for (const f of faults.effects()) {
        const held = f.hold?.();
        if (held) await held;
      }
      phases.handlerMs += performance.now() - t;
      const ev = processEvent(base, received, start);
      const outage = failedByFault(faults.effects());
      if (outage) {
        ev.outcome = 'error';
        ev.end = nowMicros();
        stats.errors++;
        record(ev);
        settlement = outage;
        break;
      }
      if (decision.action === 'handle' && msg) {
        grouped = groupable();
        if (grouped) {
          if (!apply.inGroup(ev, msg)) settlement = 'requeue';
          else for (const f of faults.effects()) f.afterApply?.();
          break;
        }
        const done = await apply.alone(d, ev, msg);
        if (done === 'held') return; // unsettled until the strategy releases it
        if (done === 'failed') settlement = 'requeue';
        break;
      }
      ev.outcome = 'error';
      ev.end = nowMicros();
      stats.errors++;
      if (decision.action === 'park' && msg && lot) {
        lot.park({ key: msg.key, producer: msg.producer, seq: msg.seq, reason: decision.parkKey ? 'poison' : 'key-parked', consumer: init.id, at: ev.end });
      }
      record(ev);
      if (decision.action === 'retry') {
        await sleep(decision.retryAfterMs);
        continue;
      }
      settlement = decision.action === 'handle' ? 'dead-letter' : decision.settle;
      break;
    }
    await settle(d, settlement, grouped);
  };

  /**
   * The usual handling without an async frame of its own (a frame was about a kilobyte per
   * message): a decoded message, a 0 ms handler, no poison policy, and a grouped apply (no fault
   * acting, a pure strategy). Exactly what `slowly` does for it, which takes everything else.
   */
  const atOnce = ctx.handlerSpec.kind === 'constant' && ctx.handlerSpec.ms === 0 && !spec.poison;
  return (d, msg, received) => {
    if (!atOnce || !msg || !groupable()) return slowly(d, msg, received);
    const ev = deliveryEvent(init.id, d, msg, received, nowMicros());
    return settle(d, apply.inGroup(ev, msg) ? 'ack' : 'requeue', true);
  };
}

/** The settlement a failing-handlers fault imposes on this attempt, if one is active. */
function failedByFault(effects: Iterable<HandlerEffect>): Settlement | undefined {
  for (const f of effects) {
    const how = f.failWith?.();
    if (how) return how;
  }
  return undefined;
}
