import { openStrategyStore } from '../../consumer/strategies/open.ts';
import { buildService } from '../../service/build.ts';
import { serviceEnv } from '../../service/env.ts';
import type { Stage } from '../context.ts';

/**
 * The consumers c1..cN, each its own process, started before the producers so that they hold
 * their lanes before the first message. The store they share is created here, once, rather than
 * by all of them at the same moment. With a consumer under test (consumers.service) each
 * process runs the team's service (harness/roles/service/), built here first when it says how;
 * what its reports could not say (malformed, another run's) or a service that reported no handling at all makes the run incomplete.
 */
export const consumers: Stage = {
  name: 'consumers',
  async run(ctx) {
    const group = ctx.consumers;
    const service = ctx.scenario.consumers.service;
    ctx.defer('stopping consumers', async () => {
      await Promise.all(group.live.map((w) => w.stop(10_000)));
      const all = [...group.retired, ...group.live];
      for (const c of all) {
        ctx.record.consumerStats[c.id] = c.stats;
        for (const p of c.stats.service?.problems ?? []) ctx.record.incomplete.push(p);
      }
      // A standby process (a single active consumer's second) may rightly handle nothing; a
      // service none of whose processes reported any handling is not judged.
      const stopped = all.filter((c) => c.stats.service);
      if (service && stopped.length > 0 && stopped.every((c) => c.stats.service!.started === 0)) {
        for (const c of stopped) ctx.record.incomplete.push(`no handling reported by ${c.id}; its last log lines: ${c.stats.service!.lastLog.join(' / ') || '(none)'}`);
      }
    });
    await (await openStrategyStore(ctx.initExtras.store ?? ctx.record.storeFile, ctx.scenario)).close();
    if (service?.build) {
      const env = serviceEnv({ link: ctx.broker.service!, endpoint: ctx.deployment!.endpoint, settings: ctx.settings, names: ctx.names, spec: service, runDir: ctx.runDir, log: ctx.log });
      await buildService(service.build, service.cwd, env, ctx.log);
    }
    for (let i = 1; i <= ctx.scenario.consumers.processes; i++) group.start(`c${i}`);
    const bound = service ? service.readyTimeoutMs + 10_000 : 90_000;
    await Promise.all(group.live.map((c) => c.waitFor('ready', bound, 'consumer start-up')));
    ctx.mark('consumers-ready');
  },
};
