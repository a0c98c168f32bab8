import type { FaultKind } from './contract.ts';
import { checkConsumerName, consumerNamed, killWorker, restartAtEnd, selfKill } from './contract.ts';

/**
 * kill -9 a consumer process; a fresh one with the same name starts at the window's end.
 * `when: after-apply` makes the process kill itself right after its next apply, before the
 * ack: the crash between a committed effect and its acknowledgement that at-least-once
 * delivery turns into a duplicate.
 */
const killConsumer: FaultKind = {
  kind: 'kill-consumer',
  destructive: false,
  schema: {
    type: 'object',
    properties: {
      consumer: { type: 'string', description: 'c1, c2, ... or "busiest" (the one that processed most so far)' },
      restart: { type: 'boolean' },
      when: { enum: ['now', 'after-apply'] },
    },
    required: ['consumer'],
  },
  check: (spec, scope) => checkConsumerName(`${scope.path}.consumer`, spec.consumer, scope),
  async start(spec, ctx) {
    const w = consumerNamed(ctx, spec.consumer);
    const killed = await killWorker(w, 'kill-consumer', spec.when === 'after-apply');
    return { evidence: { consumer: w.id, ...killed }, end: restartAtEnd(ctx, spec, w.id) };
  },
  worker: {
    // when: after-apply. The history reaches its file first: the apply happened.
    consumer: (_args, side) => ({ afterApply: selfKill(side) }),
  },
};
export default killConsumer;
