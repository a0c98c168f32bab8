import { nowMicros } from '../../clock.ts';
import type { Stage } from '../context.ts';

/**
 * The shared start instant, a little ahead so that every driver has it in time: the schedule's
 * zero, and after the warm-up the start of the measured phase.
 */
export const start: Stage = {
  name: 'start',
  async run(ctx) {
    const { record } = ctx;
    const startUs = nowMicros() + 300_000;
    record.startUs = startUs;
    record.measureStartUs = startUs + ctx.scenario.workload.warmupMs * 1000;
    ctx.history.write({ type: 'mark', at: startUs, name: 'start' });
    ctx.history.write({ type: 'mark', at: record.measureStartUs, name: 'measure' });
    for (const p of ctx.publishing!.drivers) p.send({ type: 'start', startUs });
    for (const f of ctx.onStart) f(startUs);
  },
};
