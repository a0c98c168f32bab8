import { faultKinds } from '../../faults/registry.ts';
import { ensureRequirements } from '../../setup/install.ts';
import { POSTGRESQL } from '../../runtime/requirements.ts';
import { needsOf } from '../../setup/setup.ts';
import type { Stage } from '../context.ts';

/** What the local runtime needs from the machine (installed as root, else one clear error), and the fault kinds. */
export const setup: Stage = {
  name: 'setup',
  async run(ctx) {
    if (!ctx.opts.deployment && ctx.opts.runtime === 'local') ensureRequirements(needsOf([ctx.broker], false), ctx.log);
    if (ctx.scenario.consumers.store === 'postgres') ensureRequirements([{ requirement: POSTGRESQL, purpose: "for the consumers' entity store", by: 'consumers.store' }], ctx.log);
    // Loaded before the producers' clock starts: loading them after the start message took long
    // enough on a busy machine for a short run's producers to finish first, and the timeline,
    // armed too late, never ran its faults.
    ctx.faultKinds = await faultKinds();
  },
};
