/**
 * The drain: after the producers stop, wait for every acked message to be processed, as long
 * as the broker can take to give a message back (its redelivery horizon: lock duration,
 * visibility timeout, ack deadline, session timeout, max.poll.interval.ms) plus a margin, and
 * no longer than run.drainTimeoutMs when the scenario sets it. It ends early when the broker
 * reports that it holds nothing more for the run (the rest will never come). A drain that ends
 * any other way leaves undelivered messages `unseen`, not `lost` (the broker decides that).
 *
 * With the counts met it waits for quiet (SETTLED_MS) before calling the run drained: a broker
 * may still give a message back. A broker whose count is exact (RemainingReport.exact) and
 * holds nothing has nothing to give back, so that wait is skipped.
 */
import { sleep } from '../clock.ts';
import type { RemainingReport } from '../broker/contract.ts';
import type { DrainPlan } from '../scenario/drain-plan.ts';

/** Nothing moving for this long with the counts met: every acked message was processed. */
const SETTLED_MS = 1_500;
/** How often the broker is asked during the drain (when nothing is in flight). */
const ASK_EVERY_MS = 2_000;

export type DrainEnd = 'processed' | 'broker-empty' | 'cap' | 'no-progress' | 'interrupted' | 'gave-up' | 'not-reached';

export interface DrainOutcome {
  drained: boolean;
  waitedMs: number;
  reason: string;
  /** What ended it (result schema: harness.drain.endedBy). */
  endedBy: DrainEnd;
  /** The broker's redelivery horizon plus the margin: the longest wait without progress. */
  horizonMs: number;
  /** run.drainTimeoutMs, when the scenario set it. */
  capMs: number | null;
}

/** The live counts the drain watches. */
export interface DrainProbe {
  acked(): number;
  /** Process events with outcome ok. */
  applied(): number;
  /** Handler errors (progress too). */
  errors(): number;
  inFlight(): number;
  /** What the broker still holds, if it can tell (BrokerAdmin.remaining). */
  remaining?(): Promise<RemainingReport>;
}

export function notReached(plan: DrainPlan): DrainOutcome {
  return { drained: false, waitedMs: 0, reason: 'not reached', endedBy: 'not-reached', ...plan };
}

export async function drain(probe: DrainProbe, plan: DrainPlan, signal: AbortSignal, tick: () => void = () => {}, pollMs = 250): Promise<DrainOutcome> {
  const started = Date.now();
  let lastProgress = -1;
  let lastChange = Date.now();
  let lastAsk = 0;
  /** The broker's last answer was exact: it is asked on every poll with the counts met. */
  let exact = false;
  const end = (endedBy: DrainEnd, reason: string, drained = false): DrainOutcome => ({ drained, waitedMs: Date.now() - started, reason, endedBy, ...plan });
  let polls = 0;
  while (!signal.aborted) {
    // The first look soon: with an exact broker (the memory broker) and every message processed
    // the drain ends there, and a 250 ms first wait was a sixth of a short run's time after its plan.
    await sleep(polls++ === 0 ? Math.min(50, pollMs) : pollMs, signal);
    if (signal.aborted) break;
    tick();
    const acked = probe.acked();
    const applied = probe.applied();
    const progress = applied + probe.errors();
    const inFlight = probe.inFlight();
    if (progress !== lastProgress) {
      lastProgress = progress;
      lastChange = Date.now();
    }
    const quietMs = Date.now() - lastChange;
    const waited = Date.now() - started;
    const countsMet = applied >= acked && inFlight === 0;
    if (countsMet && quietMs >= SETTLED_MS) return end('processed', 'every acked message was processed', true);
    if (countsMet && probe.remaining && (exact || lastAsk === 0)) {
      lastAsk = Date.now();
      const r = await probe.remaining().catch(() => null);
      exact = r?.known === true && r.exact === true;
      if (exact && r!.total === 0) return end('processed', 'every acked message was processed, and the broker holds nothing for the run', true);
    }
    if (probe.remaining && inFlight === 0 && quietMs >= SETTLED_MS && Date.now() - lastAsk >= ASK_EVERY_MS) {
      lastAsk = Date.now();
      const r = await probe.remaining().catch(() => null);
      if (r && r.known && (r.deliverable ?? r.total) === 0) {
        const parked = r.total ? `; ${r.total} dead-lettered` : '';
        return end('broker-empty', `the broker holds nothing more for the run to deliver (${acked - applied} acked message${acked - applied === 1 ? '' : 's'} not processed${parked})`);
      }
    }
    if (plan.capMs !== null && waited >= plan.capMs) return end('cap', `drain timeout (${plan.capMs} ms) with messages still to come`);
    if (quietMs >= plan.horizonMs) return end('no-progress', `no progress for ${Math.round(quietMs / 1000)} s (the broker's redelivery horizon plus margin)`);
  }
  return end('interrupted', 'interrupted');
}
