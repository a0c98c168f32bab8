import { openStrategyStore } from '../../consumer/strategies/open.ts';
import type { Stage } from '../context.ts';

/**
 * The consumers c1..cN, each its own process, started before the producers so that they hold
 * their lanes before the first message. The store they share is created here, once, rather than
 * by all of them at the same moment.
 */
export const consumers: Stage = {
  name: 'consumers',
  async run(ctx) {
    const group = ctx.consumers;
    ctx.defer('stopping consumers', async () => {
      await Promise.all(group.live.map((w) => w.stop(10_000)));
      for (const c of [...group.retired, ...group.live]) ctx.record.consumerStats[c.id] = c.stats;
    });
    (await openStrategyStore(ctx.record.storeFile, ctx.scenario)).close();
    for (let i = 1; i <= ctx.scenario.consumers.processes; i++) group.start(`c${i}`);
    await Promise.all(group.live.map((c) => c.waitFor('ready', 90_000, 'consumer start-up')));
    ctx.mark('consumers-ready');
  },
};
