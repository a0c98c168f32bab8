/**
 * resequencer: Enterprise Integration Patterns' resequencer, per key (an out-of-order
 * buffer with bounds). A message that is the next version of its key (stored + 1,
 * read from the store every consumer shares, so competing consumers agree) is applied; one
 * further ahead is held, unacknowledged, in this consumer; an older one is skipped. Held
 * messages are released in order as soon as the store says their predecessor was applied, by
 * this consumer or another.
 *
 * Bounds, per key: `maxHeld` messages and `maxAgeMs` for the oldest (by default 1,000 and 30 s).
 * At a bound it records an alert, fetches the entity's current state from its owner, stores it
 * (if newer), releases what that state covers as skipped, and goes on from there. A third bound
 * is the consumer's own: held messages stay unsettled and count toward its in-flight cap, so
 * once they fill it nothing more is delivered and a gap that is queued behind them (a
 * dead-lettered message redriven to the tail) never arrives. When the cap has stayed full of
 * held messages for `fullWaitMs`, the bound acts on the key that has waited longest. `unbounded`
 * is the buffer with no bound: a lost message then holds its key's successors until the
 * run ends (they stay unacknowledged; the broker still holds them).
 *
 * Costs (costs.ts): held, released, alerts, fetches; peaks of held messages (in this consumer,
 * and per key) and of their bytes; the added latency of released messages (held → applied).
 */
import type { ConsumerStrategy, Delivered, Effect, Released, StrategyContext } from './contract.ts';
import { rowTable } from './rows.ts';
import { type Program } from '../store/program.ts';
import { emptyCosts, type StrategyCosts } from './costs.ts';
import { applyChange } from '../../workload/changes.ts';
import { eventContent } from '../../workload/entity.ts';
import { encode, newHistogram, record } from '../../metrics/histogram.ts';

interface HeldMessage {
  m: Delivered;
  /** When it was held, µs. */
  at: number;
  /** Since when it counts toward the age bound (reset by a fetch that did not cover it), µs. */
  since: number;
}

const resequencer: ConsumerStrategy = {
  name: 'resequencer',
  description: 'hold a message that is ahead of the next expected version (from the shared store) until its predecessors are applied; bounded per key by count and age, then alert and fetch the state from the owner',
  options: {
    maxHeld: { type: 'integer', minimum: 1, default: 1000, description: 'Held messages per key before the bound acts. Default 1000.' },
    maxAgeMs: { type: 'integer', minimum: 1, default: 30_000, description: 'Age of the oldest held message of a key before the bound acts, ms. Default 30000.' },
    fullWaitMs: { type: 'integer', minimum: 0, default: 5000, description: "How long held messages may fill the consumer's in-flight cap (nothing more is delivered, so no gap can fill) before the bound acts on the key that waited longest, ms. Default 5000: longer than a competing consumer's usual stall, shorter than maxAgeMs." },
    unbounded: { type: 'boolean', default: false, description: 'No bound: hold until the gap fills, however long. Default false.' },
  },
  pure: false,
  scoresVersion: true,
  usesOwner: true,
  open(db, entity, options, context?: StrategyContext) {
    const rows = rowTable(db, 'entities_resequencer');
    const unbounded = options.unbounded === true;
    const maxHeld = unbounded ? Infinity : Number(options.maxHeld ?? 1000);
    const maxAgeUs = unbounded ? Infinity : Number(options.maxAgeMs ?? 30_000) * 1000;
    const fullWaitUs = unbounded ? Infinity : Number(options.fullWaitMs ?? 5000) * 1000;
    const cap = context?.inFlightCap;
    /** Since when held messages have filled the in-flight cap (µs), or null. */
    let fullSince: number | null = null;
    const now = () => context?.now() ?? Date.now() * 1000;

    /** When each key's last apply or skip took effect: stamped inside its transaction (appliedAt). */
    const appliedAt = new Map<string, number>();
    /** The next version applies; older ones are skipped; newer ones wait. One transaction. */
    function* nextOnly(key: string, seq: number): Program<Effect | 'held'> {
      const row = yield* rows.get(key);
      const stored = row?.version ?? 0;
      if (seq > stored + 1) return 'held';
      appliedAt.set(key, now());
      if (seq <= stored) return 'skipped';
      yield* rows.put(key, seq, applyChange(row?.state, eventContent(entity, key, seq)));
      return 'applied';
    }
    const step = (key: string, seq: number) => db.transaction(key, () => nextOnly(key, seq));
    /** Stores the owner's state when it is newer than the stored one. */
    function* adoptNewer(key: string, version: number, state: Record<string, string | number>): Program<boolean> {
      if (((yield* rows.get(key))?.version ?? 0) >= version) return false;
      yield* rows.put(key, version, state);
      return true;
    }
    const adopt = (key: string, version: number, state: Record<string, string | number>) => db.transaction(key, () => adoptNewer(key, version, state));

    const buffers = new Map<string, Map<number, HeldMessage>>();
    const costs = emptyCosts();
    const count = (name: string, by = 1) => (costs.counts[name] = (costs.counts[name] ?? 0) + by);
    const peak = (name: string, v: number) => (costs.peaks[name] = Math.max(costs.peaks[name] ?? 0, v));
    const added = newHistogram();
    let heldNow = 0;

    /** Releases what the store now allows for one key, in order. */
    const drain = function* (key: string, buf: Map<number, HeldMessage>, out: Released[]): Program<void> {
      for (;;) {
        if (buf.size === 0) break;
        const stored = (yield* rows.get(key))?.version ?? 0;
        const seq = Math.min(...buf.keys()); // in version order, the lowest first
        if (seq > stored + 1) break;
        const h = buf.get(seq)!;
        const start = now();
        const effect = yield* step(key, seq);
        if (effect === 'held') break; // cannot happen: versions only rise
        buf.delete(seq);
        heldNow--;
        const at = appliedAt.get(key)!;
        record(added, at - h.at);
        count('released');
        out.push({ ...h.m, effect, start, at });
      }
      if (buf.size === 0) buffers.delete(key);
    };

    /** At the bound: alert, fetch the owner's state, store it if newer. */
    const atBound = function* (key: string, buf: Map<number, HeldMessage>, t: number, full = false): Program<void> {
      const oldest = Math.min(...[...buf.values()].map((h) => h.since));
      const why = buf.size > maxHeld ? 'count' : full ? 'in-flight cap' : 'age';
      count('alerts');
      context?.mark('resequencer-alert', { key, held: buf.size, waitedMs: Math.round((t - oldest) / 1000), bound: why, expected: ((yield* rows.get(key))?.version ?? 0) + 1 });
      if (!context?.fetchOwner) return;
      count('fetches');
      let fetched;
      try {
        fetched = yield* db.waitFor(context.fetchOwner(key));
      } catch (e) {
        count('fetchErrors');
        context.mark('resequencer-fetch-failed', { key, error: (e as Error).message });
        return;
      }
      const stored = fetched ? yield* adopt(key, fetched.version, fetched.state) : false;
      context.mark('resequencer-fetched', { key, version: fetched?.version ?? null, stored });
    };

    return {
      *apply(m) {
        const effect = yield* step(m.key, m.seq);
        if (effect !== 'held') return effect;
        let buf = buffers.get(m.key);
        if (!buf) buffers.set(m.key, (buf = new Map()));
        if (buf.has(m.seq)) return 'skipped'; // a redelivery of one already held here
        const at = now();
        buf.set(m.seq, { m, at, since: at });
        heldNow++;
        count('held');
        peak('peakHeld', heldNow);
        peak('peakHeldPerKey', buf.size);
        return 'held';
      },
      *release() {
        const out: Released[] = [];
        const settle = function* (key: string, buf: Map<number, HeldMessage>, t: number, full = false): Program<void> {
          yield* atBound(key, buf, t, full);
          yield* drain(key, buf, out);
          // What the owner's state did not cover waits again, from now.
          for (const h of buf.values()) h.since = t;
        };
        for (const [key, buf] of [...buffers]) {
          yield* drain(key, buf, out);
          if (buf.size === 0) continue;
          const t = now();
          const oldest = Math.min(...[...buf.values()].map((h) => h.since));
          if (buf.size > maxHeld || t - oldest > maxAgeUs) yield* settle(key, buf, t);
        }
        const t = now();
        if (cap === undefined || heldNow < cap) fullSince = null;
        else if (fullSince === null) fullSince = t;
        else if (t - fullSince >= fullWaitUs) {
          const waited = [...buffers].map(([key, buf]) => ({ key, buf, since: Math.min(...[...buf.values()].map((h) => h.since)) }));
          const longest = waited.reduce((a, b) => (b.since < a.since ? b : a));
          yield* settle(longest.key, longest.buf, t, true);
          // Still full: the next key that waited longest gets its turn after another wait.
          fullSince = heldNow < cap ? null : t;
        }
        return out;
      },
      costs(): StrategyCosts {
        return { counts: { ...costs.counts, heldAtEnd: heldNow }, peaks: costs.peaks, histograms: added.totalCount > 0 ? { addedLatency: encode(added) } : ({} as Record<string, string>) };
      },
      appliedAt: (key) => appliedAt.get(key),
      finalStates: () => rows.all(),
    };
  },
};
export default resequencer;
