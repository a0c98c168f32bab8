import type { Delivery } from '../../broker/contract.ts';
import { CAP_STALL_END_MARK, CAP_STALL_MARK } from '../../consumer/strategies/costs.ts';
import type { ProcessEvent } from '../../history/events.ts';
import type { ConsumerContext } from './context.ts';

/**
 * Deliveries a holding strategy keeps unsettled until it releases them (they count toward the
 * in-flight cap). Every 10 ms, and whenever the mode takes a delivery, the strategy is asked
 * what it releases: each is recorded (its apply happened at release) and acknowledged.
 */
export interface Holding {
  /** Keeps a delivery the strategy holds, with its event so far. */
  hold(d: Delivery, ev: ProcessEvent, msg: { key: string; producer: string | null; seq: number }): void;
  /** Asks the strategy for releases, if anything is held. */
  poke(): void;
  stop(): void;
  /** Cap stalls for the strategy's costs. */
  counts(): Record<string, number>;
}

export function holding(ctx: ConsumerContext): Holding {
  const { store, history, stats, log } = ctx;
  const held = new Map<string, { d: Delivery; ev: ProcessEvent }>();
  const heldId = (m: { key: string; producer: string | null; seq: number }) => `${m.producer ?? ''}\u0000${m.key}\u0000${m.seq}`;
  const capStall = capStallMeter(ctx.inFlightCap, ctx.strategyContext.mark);
  let releasing = false;
  const releaseTick = async () => {
    if (releasing || held.size === 0) return;
    releasing = true;
    try {
      const released = await store.release();
      const settle: Delivery[] = [];
      for (const r of released) {
        const h = held.get(heldId(r));
        if (!h) continue;
        held.delete(heldId(r));
        history.write({ ...h.ev, held: h.ev.start, start: r.start, end: r.at, effect: r.effect });
        stats.applied++;
        if (r.effect !== 'applied') stats.stale++;
        settle.push(h.d);
      }
      capStall.update(held.size);
      if (settle.length === 0) return;
      // As for every handling: its record reaches the file before its ack reaches the broker.
      history.flush();
      for (const d of settle) await d.settle('ack').catch((e: Error) => ctx.settleLog(`settle ack failed: ${e.message}`));
    } catch (e) {
      log(`releasing held messages failed: ${(e as Error).message}`);
    } finally {
      releasing = false;
    }
  };
  const releaser = setInterval(() => void releaseTick(), 10);
  return {
    hold(d, ev, msg) {
      ctx.strategyContext.mark('held', { key: msg.key, producer: msg.producer, seq: msg.seq });
      held.set(heldId(msg), { d, ev });
      capStall.update(held.size);
    },
    poke() {
      if (held.size > 0) void releaseTick();
    },
    stop: () => clearInterval(releaser),
    counts: () => capStall.counts(),
  };
}

/**
 * When held messages fill the in-flight cap, the consumer gets nothing more: its lanes stall
 * until a release. Counts those stalls and their time (ms), for the strategy's costs, and marks
 * each one's start and end in the history (CAP_STALL_MARK), so the result says when.
 */
function capStallMeter(cap: number, mark: (name: string, detail: Record<string, unknown>) => void) {
  let since: number | undefined;
  let stalls = 0;
  let stalledMs = 0;
  return {
    update(held: number) {
      if (held >= cap && since === undefined) {
        since = performance.now();
        stalls++;
        mark(CAP_STALL_MARK, { held, cap });
      } else if (held < cap && since !== undefined) {
        const ms = performance.now() - since;
        stalledMs += ms;
        since = undefined;
        mark(CAP_STALL_END_MARK, { ms: Math.round(ms) });
      }
    },
    counts(): Record<string, number> {
      if (stalls === 0) return {};
      return { capStalls: stalls, capStalledMs: Math.round(stalledMs + (since === undefined ? 0 : performance.now() - since)) };
    },
  };
}
