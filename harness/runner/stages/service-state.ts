import { serviceEnv } from '../../service/env.ts';
import { recordState } from '../../service/state.ts';
import type { Stage } from '../context.ts';

/**
 * A consumer under test's final state (consumers.service.state), asked once the drain is over and
 * before its processes stop: kept in the run folder for the analysis. A state that cannot be
 * read makes the run incomplete.
 */
export const serviceState: Stage = {
  name: 'service-state',
  applies: (ctx) => ctx.scenario.consumers.service?.state !== undefined,
  async run(ctx) {
    const service = ctx.scenario.consumers.service!;
    const env = serviceEnv({ link: ctx.broker.service!, endpoint: ctx.deployment!.endpoint, settings: ctx.settings, names: ctx.names, spec: service, runDir: ctx.runDir, log: ctx.log });
    const state = await recordState(service.state!, service.cwd, env, ctx.runDir);
    if ('error' in state) ctx.record.incomplete.push(`the service's state: ${state.error}`);
    ctx.mark('service-state', 'error' in state ? state : { keys: Object.keys(state.versions).length });
  },
};
