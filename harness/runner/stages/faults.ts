import { FaultTimeline } from '../../faults/timeline.ts';
import type { Stage } from '../context.ts';
import { RunnerStallWatch, unexercisedWindows } from '../runner-stall.ts';

/**
 * The fault timeline, armed at the start of the measured phase. Undone on any exit: every fault
 * still acting is ended, and its record (planned and actual window, evidence) kept. A fault
 * window in which the runner stood still, with a broker or the owner inside it, did not act on
 * them: the run is then incomplete (runner-stall.ts).
 */
export const faults: Stage = {
  name: 'faults',
  async run(ctx) {
    const { record } = ctx;
    const stalls = new RunnerStallWatch();
    const timeline = new FaultTimeline(ctx.scenario.faults, ctx.faultKinds, {
      runtime: ctx.opts.runtime,
      allowDestructive: ctx.opts.allowDestructive,
      deployment: ctx.deployment!,
      admin: ctx.admin!,
      names: ctx.names,
      producers: () => ctx.publishing!.publishers(),
      consumers: () => ctx.consumers.live,
      storeFile: record.storeFile,
      restartConsumer: (id) => ctx.consumers.restart(id),
      log: ctx.log,
      ...ctx.faultContext,
    }, ctx.history);
    ctx.timeline = timeline;
    ctx.defer('undoing faults', async () => {
      try {
        await timeline.stop();
      } finally {
        record.faults = timeline.records;
        for (const f of timeline.failures()) record.incomplete.push(`fault ${f.name}: ${f.error}`);
        const stalled = stalls.stop();
        if (ctx.inRunner.length > 0) record.incomplete.push(...unexercisedWindows(record.faults, stalled, record.endUs));
      }
    });
    timeline.schedule(record.measureStartUs);
  },
};
