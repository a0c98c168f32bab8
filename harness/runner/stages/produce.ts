import { nowMicros } from '../../clock.ts';
import type { RunContext, Stage } from '../context.ts';
import { CpuWatch } from '../cpu-watch.ts';
import { GiveUpWatch } from '../give-up.ts';
import { sleepUntilFinished } from '../wake.ts';
import { sum } from '../watch.ts';

/**
 * The sending: until every driver has sent its plan (or exited), watching the workers, sampling
 * CPU, and giving up early once the run can no longer keep its rate (its verdict is then
 * unknown: the drivers are told to stop). Then what publishes settles its last sends.
 */
export const produce: Stage = {
  name: 'produce',
  async run(ctx) {
    const { record } = ctx;
    const publishing = ctx.publishing!;
    const drivers = publishing.drivers;
    const cpuWatch = new CpuWatch();
    const giveUp = giveUpWatch(ctx);
    while (!ctx.signal.aborted && !drivers.every((p) => p.stats.finished || p.exited)) {
      await sleepUntilFinished(drivers, 500, ctx.signal);
      ctx.watch.tick('produce');
      const publishers = publishing.publishers();
      cpuWatch.sample([...new Set([...publishers, ...drivers]), ...ctx.consumers.live]);
      const reason = record.gaveUp ? null : giveUp.sample({ atUs: nowMicros(), sent: sum(publishers, 'sent'), behindMs: Math.max(0, ...publishers.map((p) => p.stats.behindMs)) });
      if (reason) {
        record.gaveUp = { atMs: Math.round((nowMicros() - record.startUs) / 1000), reason };
        record.incomplete.push(reason);
        ctx.log(reason);
        for (const p of drivers) p.send({ type: 'stop' });
      }
    }
    const unsettled = publishing.settle && !record.gaveUp ? await publishing.settle(ctx.signal) : null;
    if (unsettled) record.incomplete.push(unsettled);
    record.cpu = cpuWatch.figures();
    ctx.mark('producers-finished');
  },
};

function giveUpWatch(ctx: RunContext): GiveUpWatch {
  const { scenario, record } = ctx;
  const settleUs = scenario.run.settleMs * 1000;
  const plannedS = (scenario.workload.warmupMs + (scenario.workload.durationMs ?? 0)) / 1000;
  const faultRecords = ctx.timeline!.records;
  return new GiveUpWatch({
    measureStartUs: record.measureStartUs,
    delayBoundMs: scenario.run.giveUpDelayMs,
    targetPerSecond: scenario.workload.rate.kind === 'fixed' ? scenario.workload.rate.perSecond : null,
    planEndUs: record.startUs + plannedS * 1e6,
    // Planned or actual, whichever is wider, plus the settle time.
    inFault: (t) =>
      faultRecords.some((r) => Math.min(r.plannedStartUs, r.startUs ?? Infinity) <= t && t <= Math.max(r.plannedEndUs, r.endUs ?? (r.startUs !== undefined ? Infinity : 0)) + settleUs),
  });
}
