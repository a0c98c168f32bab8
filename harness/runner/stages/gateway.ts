import { relayCount } from '../../gateway/relays.ts';
import { startGateway } from '../../gateway/start.ts';
import type { Stage } from '../context.ts';
import { keepPublisherStats } from '../record.ts';

/**
 * An order service under HTTP load (workload.gateway) publishes in the producers' place: its
 * instances and outbox relays publish, its load driver decides when the sending is over, and
 * the fault kinds get its relays.
 */
export const gateway: Stage = {
  name: 'gateway',
  applies: (ctx) => ctx.scenario.workload.gateway !== undefined,
  async run(ctx) {
    const lanes = relayCount(ctx.scenario, ctx.broker.capabilities?.(ctx.settings, ctx.opts.runtime));
    const g = await startGateway(ctx.scenario, { runDir: ctx.runDir, histDir: ctx.histDir, lanes, makeInit: ctx.workerInit, log: ctx.log, host: ctx.deployment!.host });
    ctx.defer('stopping the order service', async () => {
      await Promise.all(g.all().map((w) => w.stop(10_000)));
      keepPublisherStats(ctx.record, g.publishers());
      const services = Object.fromEntries(g.all().filter((w) => w !== g.driver).map((w) => [w.id, w.stats]));
      ctx.record.gateway = { driver: g.driver.stats, services, storeFile: g.storeFile };
    });
    for (const w of g.all()) ctx.mark('worker-started', { id: w.id, role: w.init.role, pid: w.pid });
    ctx.publishing = {
      drivers: [g.driver],
      publishers: g.publishers,
      workers: () => [...new Set([...g.publishers(), ...g.all()])],
      // The service publishes what it accepted: wait (bounded) for its last sends and its outbox.
      settle: (signal) => g.settle(signal),
    };
    ctx.faultContext.gateway = { relays: g.relays, restartRelay: g.restartRelay };
  },
};
