import type { FaultKind } from './contract.ts';
import { checkConsumerName, consumerNamed, endInWorker, startInWorker } from './contract.ts';

/**
 * A downstream outage: during the window every handling attempt of the chosen consumers
 * (all by default) fails, and the delivery is settled as told: dead-lettered (the usual
 * policy; a later `redrive` brings the messages back on top of newer ones), requeued, or left
 * to the broker's lock or visibility expiry.
 */
const handlerErrors: FaultKind = {
  kind: 'handler-errors',
  destructive: false,
  schema: {
    type: 'object',
    properties: {
      consumers: { type: 'array', items: { type: 'string' }, description: 'The consumer processes whose handlers fail: c1 ... cN (not busiest). Default every consumer.' },
      settle: { enum: ['dead-letter', 'requeue', 'release'], description: 'How a failed delivery is settled: dead-letter (default), requeue, or release (left to the broker\'s lock or visibility expiry).' },
    },
  },
  doc: {
    summary: 'A downstream outage: every handling attempt of the chosen consumers fails for the window, and the delivery is settled as `settle` says. With dead-lettering, a later `redrive` brings the messages back on top of newer ones.',
    example: '{ name: outage, kind: handler-errors, settle: dead-letter, atMs: 2s, durationMs: 2s }',
  },
  check: (spec, scope) =>
    ((spec.consumers as unknown[] | undefined) ?? []).flatMap((c, i) => checkConsumerName(`${scope.path}.consumers[${i}]`, c, scope, false)),
  async start(spec, ctx) {
    const targets = Array.isArray(spec.consumers) ? (spec.consumers as string[]).map((c) => consumerNamed(ctx, c)) : ctx.consumers();
    const settle = (spec.settle as 'dead-letter' | 'requeue' | 'release' | undefined) ?? 'dead-letter';
    for (const w of targets) startInWorker(w, 'handler-errors', { settle });
    let ended = false;
    return {
      evidence: { consumers: targets.map((w) => w.id), settle },
      async end() {
        if (ended) return undefined;
        ended = true;
        // Consumers restarted since the start get the message too: they must all heal.
        for (const w of ctx.consumers()) endInWorker(w, 'handler-errors');
        return { healed: ctx.consumers().map((w) => w.id) };
      },
    };
  },
  worker: {
    consumer: (args) => ({ failWith: () => args.settle as 'dead-letter' | 'requeue' | 'release' }),
  },
};
export default handlerErrors;
