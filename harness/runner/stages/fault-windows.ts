import { nowMicros, sleep } from '../../clock.ts';
import type { Stage } from '../context.ts';

/**
 * After the sending: the fault windows still open close on their own schedule (after giving
 * up, they are ended now), then every fault is undone before the drain.
 */
export const faultWindows: Stage = {
  name: 'fault-windows',
  async run(ctx) {
    const timeline = ctx.timeline!;
    while (!ctx.record.gaveUp && !ctx.signal.aborted && timeline.busyAfter(nowMicros())) {
      await sleep(100, ctx.signal);
      ctx.watch.tick('faults');
    }
    await timeline.stop();
  },
};
