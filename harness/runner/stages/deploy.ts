import { cacheDir } from '../../runtime/cache.ts';
import { onCleanup } from '../../runtime/cleanup.ts';
import { join } from 'node:path';
import type { Stage } from '../context.ts';

/** The broker: deployed for the run, adopted from `brokers up`, or the live one the caller gave. */
export const deploy: Stage = {
  name: 'deploy',
  async run(ctx) {
    const { opts, record } = ctx;
    // Also stopped if the process exits before the run's own clean-up could (runtime/cleanup.ts).
    const undoCleanup = onCleanup('stop brokers', async () => ctx.deployment?.stop());
    ctx.defer('stopping brokers', async () => {
      try {
        await ctx.deployment?.stop();
      } finally {
        undoCleanup();
      }
    });
    ctx.progress.update({ phase: 'deploy', elapsedS: 0, totalS: 1, sentRate: 0, processedRate: 0, backlog: 0, errors: 0, stale: 0 });
    const deployment = opts.deployment
      ? { ...opts.deployment, stop: async () => {} }
      : await ctx.broker.deploy(
          { runtime: opts.runtime, workDir: join(ctx.runDir, 'brokers'), cacheDir: cacheDir(), external: opts.external, log: ctx.log, signal: ctx.signal, reuse: opts.reuseBrokers ?? true },
          ctx.settings,
        );
    ctx.deployment = deployment;
    // A broker inside this process (an emulator) stands still whenever the runner does.
    if (deployment.host) ctx.inRunner.push('broker');
    record.deployment = { broker: deployment.broker, runtime: deployment.runtime, versions: deployment.versions, emulator: deployment.emulator, endpoint: deployment.endpoint, ...(deployment.cluster ? { cluster: deployment.cluster } : {}) };
  },
};
