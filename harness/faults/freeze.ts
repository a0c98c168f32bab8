import type { FaultKind } from './contract.ts';
import { checkConsumerName, consumerNamed, procState } from './contract.ts';

const WHILE_FROZEN_MS = 1_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** SIGSTOP one consumer process (no heartbeats at all), SIGCONT at the end. */
const freeze: FaultKind = {
  kind: 'freeze',
  destructive: false,
  schema: { type: 'object', properties: { consumer: { type: 'string' } }, required: ['consumer'] },
  check: (spec, scope) => checkConsumerName(`${scope.path}.consumer`, spec.consumer, scope),
  async start(spec, ctx) {
    const w = consumerNamed(ctx, spec.consumer);
    const describe = async () => (ctx.admin.describeConsumerGroup ? await ctx.admin.describeConsumerGroup().catch((e: Error) => ({ error: e.message })) : undefined);
    const group = await describe();
    w.signal('SIGSTOP');
    await new Promise((r) => setTimeout(r, 50));
    let ended = false;
    return {
      evidence: { consumer: w.id, pid: w.pid, state: procState(w.pid), group },
      async end() {
        if (ended) return undefined;
        ended = true;
        // The group as the freeze left it, read before the process resumes: once resumed, it
        // rejoins within moments and may take its partitions back (read after, as `group`).
        // At most 1 s: the read lengthens the freeze, and a control twin's freeze must stay
        // inside the session timeout.
        const whileFrozen = await Promise.race([describe(), sleep(WHILE_FROZEN_MS).then(() => ({ error: `no answer within ${WHILE_FROZEN_MS} ms` }))]);
        w.signal('SIGCONT');
        await new Promise((r) => setTimeout(r, 50));
        return { state: procState(w.pid), whileFrozen, group: await describe() };
      },
    };
  },
};
export default freeze;
