import type { FaultKind } from './contract.ts';
import { checkConsumerName, consumerNamed, procState } from './contract.ts';

/** SIGSTOP one consumer process (no heartbeats at all), SIGCONT at the end. */
const freeze: FaultKind = {
  kind: 'freeze',
  destructive: false,
  schema: { type: 'object', properties: { consumer: { type: 'string' } }, required: ['consumer'] },
  check: (spec, scope) => checkConsumerName(`${scope.path}.consumer`, spec.consumer, scope),
  async start(spec, ctx) {
    const w = consumerNamed(ctx, spec.consumer);
    const group = ctx.admin.describeConsumerGroup ? await ctx.admin.describeConsumerGroup().catch((e: Error) => ({ error: e.message })) : undefined;
    w.signal('SIGSTOP');
    await new Promise((r) => setTimeout(r, 50));
    let ended = false;
    return {
      evidence: { consumer: w.id, pid: w.pid, state: procState(w.pid), group },
      async end() {
        if (ended) return undefined;
        ended = true;
        w.signal('SIGCONT');
        await new Promise((r) => setTimeout(r, 50));
        const group = ctx.admin.describeConsumerGroup ? await ctx.admin.describeConsumerGroup().catch((e: Error) => ({ error: e.message })) : undefined;
        return { state: procState(w.pid), group };
      },
    };
  },
};
export default freeze;
