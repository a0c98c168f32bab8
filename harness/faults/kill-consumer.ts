import type { FaultKind } from './contract.ts';
import { CONSUMER_FIELD, checkConsumerName, consumerNamed, killWorker, restartAtEnd, selfKill } from './contract.ts';

/**
 * kill -9 a consumer process; a fresh one with the same name starts at the window's end.
 * `when: after-apply` makes the process kill itself right after its next apply, before the
 * ack: the crash between a committed effect and its acknowledgement that at-least-once
 * delivery turns into a duplicate.
 */
const killConsumer: FaultKind = {
  kind: 'kill-consumer',
  underTest: true,
  destructive: false,
  schema: {
    type: 'object',
    properties: {
      consumer: CONSUMER_FIELD,
      restart: { type: 'boolean', description: 'Start a fresh process of the same name at the window\'s end (default true).' },
      when: { enum: ['now', 'after-apply'], description: 'now (default): kill -9 at once; after-apply: the process kills itself right after its next apply, before the ack.' },
    },
    required: ['consumer'],
  },
  doc: {
    summary: 'kill -9 one consumer process; a fresh one of the same name starts at the window\'s end. `when: after-apply` is the crash between a committed effect and its acknowledgement, which at-least-once delivery turns into a duplicate.',
    notes: 'With a consumer under test (consumers.service) it acts on the service\'s process and everything it runs (docs/consumer-under-test.md).',
    example: '{ name: crash-c2, kind: kill-consumer, consumer: c2, when: after-apply, atMs: 4s, durationMs: 2s }',
  },
  check: (spec, scope) => checkConsumerName(`${scope.path}.consumer`, spec.consumer, scope),
  async start(spec, ctx) {
    const w = consumerNamed(ctx, spec.consumer);
    // A consumer under test is killed from inside its worker, which reads what the service
    // reported up to its death before it ends too: its records are the service's, not the harness's loss.
    const service = w.init.scenario.consumers.service !== undefined;
    const killed = await killWorker(w, 'kill-consumer', service || spec.when === 'after-apply', { now: spec.when !== 'after-apply' });
    return { evidence: { consumer: w.id, ...killed }, end: restartAtEnd(ctx, spec, w.id) };
  },
  worker: {
    // when: after-apply. The history reaches its file first: the apply happened.
    // now: only a consumer under test is told (convoy's own are killed from outside).
    consumer: (args, side) => (args.now ? (selfKill(side)(), {}) : { afterApply: selfKill(side) }),
  },
};
export default killConsumer;
