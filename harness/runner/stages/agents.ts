import { Placement } from '../placement.ts';
import { FINAL_STATE_EXPECTATION } from '../../spec/sections.ts';
import { InputError } from '../../errors.ts';
import { loopbackEndpointHost } from '../loopback-endpoint.ts';
import type { Stage } from '../context.ts';

/**
 * The run's agents (`--agent`): connected before any worker starts, each checked at its
 * handshake (token, versions). An agent lost mid-run (dead, or cut off past its heartbeat
 * bound) makes the run incomplete with the reason; its workers end there. At the end, after
 * the workers have stopped, the last of their files and the consumers' store are copied here,
 * and each agent forgets the run. Each agent's clock is measured against this one at the start,
 * every few seconds and at the end, into the history (`clock` events). A broker endpoint on this
 * host's loopback, which agents elsewhere cannot reach, stops the run before any agent is asked.
 */
export const agents: Stage = {
  name: 'agents',
  applies: (ctx) => (ctx.opts.agents?.length ?? 0) > 0,
  async run(ctx) {
    const loopback = loopbackEndpointHost(ctx.deployment?.endpoint, ctx.opts.agents!);
    if (loopback) throw new InputError(`the broker's endpoint is on this host's loopback (${loopback}), which agents on other hosts cannot reach: run against a broker they can reach, --runtime external with its connection (and proxy: false, since the external runtime's proxy listens here too); see docs/agents.md`);
    const expectsAnyState = String((ctx.scenario.expect as Record<string, unknown>)[FINAL_STATE_EXPECTATION]) === 'any';
    const shared = ctx.scenario.consumers.store === 'postgres' && !ctx.scenario.consumers.service;
    const placement = await Placement.connect(ctx.opts.agents!, ctx.record.runId, (agent, reason) => {
      const why = `agent ${agent} lost: ${reason}`;
      if (!ctx.record.incomplete.includes(why)) ctx.record.incomplete.push(why);
      ctx.log(why);
    }, expectsAnyState, shared);
    ctx.placement = placement;
    ctx.record.agents = placement.describe();
    for (const a of ctx.record.agents) ctx.log(`agent ${a.agent}: ${a.host}, ${a.cores} cores, runs the ${a.roles.join(' and ')}`);
    // Their clocks against this one, into the history: now, every few seconds, and at the end.
    await placement.watchClocks((e) => ctx.history.write(e));
    ctx.defer('copying from the agents', async () => {
      ctx.record.agents = placement.describe();
      await placement.finish(ctx.record.storeFile);
    });
  },
};
