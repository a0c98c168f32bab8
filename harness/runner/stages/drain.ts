import type { Stage } from '../context.ts';
import { drain as drainUntil } from '../drain-rules.ts';
import { inFlightNow, sum } from '../watch.ts';

/**
 * The drain (drain-rules.ts): until every acked message was processed, the broker holds nothing
 * more for the run, or its redelivery horizon passes without progress. After giving up it is
 * brief: the verdict is unknown already, and what is still queued is unseen.
 */
export const drain: Stage = {
  name: 'drain',
  async run(ctx) {
    const { record, drainPlan: plan } = ctx;
    const publishing = ctx.publishing!;
    const all = () => ctx.consumers.all();
    const admin = ctx.admin!;
    const bound = record.gaveUp ? { ...plan, capMs: Math.min(plan.capMs ?? Infinity, 5_000) } : plan;
    record.drain = await drainUntil(
      {
        acked: () => sum(publishing.publishers(), 'acked'),
        applied: () => sum(all(), 'applied'),
        errors: () => sum(all(), 'errors'),
        inFlight: () => inFlightNow(all()),
        remaining: admin.remaining ? () => admin.remaining!() : undefined,
      },
      bound,
      ctx.signal,
      () => ctx.watch.tick('drain'),
    );
    if (record.gaveUp && record.drain.endedBy === 'cap') record.drain = { ...record.drain, endedBy: 'gave-up', reason: `gave up early; ${record.drain.reason}`, capMs: plan.capMs };
    // A drain that hit its cap is not incomplete in itself: what the broker still holds is
    // unseen, and an expectation of lost 0 is then unknown (checker/expectations.ts).
    ctx.mark('drained', record.drain);
  },
};
