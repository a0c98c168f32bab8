import type { FaultKind } from './contract.ts';
import { consumerNamed, procState } from './contract.ts';

/** kill -9 a consumer process; a fresh one with the same name starts at the window's end. */
const killConsumer: FaultKind = {
  kind: 'kill-consumer',
  destructive: false,
  schema: { type: 'object', properties: { consumer: { type: 'string' }, restart: { type: 'boolean' } }, required: ['consumer'] },
  async start(spec, ctx) {
    const w = consumerNamed(ctx, spec.consumer);
    const pid = w.pid;
    w.signal('SIGKILL');
    await w.waitExit(5_000);
    let ended = false;
    return {
      evidence: { consumer: w.id, pid, state: procState(pid) },
      async end() {
        if (ended || spec.restart === false) return undefined;
        ended = true;
        await ctx.restartConsumer(w.id);
        const fresh = consumerNamed(ctx, spec.consumer);
        return { restarted: true, pid: fresh.pid };
      },
    };
  },
};
export default killConsumer;
