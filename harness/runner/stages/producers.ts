import { deepMerge } from '../../scenario/deep-merge.ts';
import type { WorkerHandle } from '../../workers/handle.ts';
import type { Stage } from '../context.ts';
import { keepPublisherStats } from '../record.ts';
import { join } from 'node:path';

/**
 * The producers, each its own process with its own settings (a producer's `broker` overrides,
 * then its process's own), ready before the start instant. Skipped when an earlier stage
 * publishes in their place (the order service).
 */
export const producers: Stage = {
  name: 'producers',
  applies: (ctx) => ctx.publishing === undefined,
  async run(ctx) {
    const { broker, settings } = ctx;
    const started: WorkerHandle[] = [];
    ctx.defer('stopping producers', async () => {
      await Promise.all(started.map((w) => w.stop(10_000)));
      keepPublisherStats(ctx.record, started);
    });
    ctx.publishing = { drivers: started, publishers: () => started, workers: () => started };
    for (const p of ctx.scenario.workload.producers) {
      for (let i = 1; i <= p.processes; i++) {
        const id = `p-${p.name}-${i}`;
        const forProducer = p.broker ? broker.resolveSettings(deepMerge(settings, p.broker)) : settings;
        const own = p.processBroker?.[i - 1];
        // Overrides are checked against the broker's schema like the scenario's own settings.
        const producerSettings = own ? broker.resolveSettings(deepMerge(forProducer, own)) : forProducer;
        const init = { ...ctx.workerInit('producer', id), settings: producerSettings as typeof settings, producer: { name: p.name, index: i - 1, of: p.processes } };
        started.push(ctx.newWorker('producers', init, join(ctx.runDir, `${id}.log`)));
      }
    }
    for (const p of started) ctx.mark('worker-started', { id: p.id, role: 'producer', pid: p.pid, ...(p.where ? { agent: p.where } : {}) });
    await Promise.all(started.map((p) => p.waitFor('ready', 60_000, 'producer start-up')));
  },
};
