import type { FaultKind } from './contract.ts';
import { CONSUMER_FIELD, checkConsumerName, consumerNamed, restartAtEnd, workerState } from './contract.ts';

/**
 * A consumer leaves its group cleanly: its process finishes what it is handling, closes its
 * client (a dynamic Kafka member sends LeaveGroup, so its partitions move at once; a static
 * one does not, and keeps them until its session times out) and exits; a fresh process with
 * the same name joins at the window's end (`restart: false`: it stays away). The clean
 * counterpart of kill-consumer: consumers leaving and joining a group during the run.
 */
const leaveConsumer: FaultKind = {
  kind: 'leave-consumer',
  destructive: false,
  schema: {
    type: 'object',
    properties: {
      consumer: CONSUMER_FIELD,
      restart: { type: 'boolean', description: 'a fresh process with the same name joins at the window\'s end (default true)' },
    },
    required: ['consumer'],
  },
  doc: {
    summary: 'One consumer leaves its group cleanly: it finishes what it is handling, closes its client (a dynamic Kafka member sends LeaveGroup; a static one keeps its partitions until its session times out) and exits; a fresh process of the same name joins at the window\'s end. The clean counterpart of `kill-consumer`.',
    example: '{ name: leave-c2, kind: leave-consumer, consumer: c2, atMs: 3s, durationMs: 3s }',
  },
  check: (spec, scope) => checkConsumerName(`${scope.path}.consumer`, spec.consumer, scope),
  async start(spec, ctx) {
    const w = consumerNamed(ctx, spec.consumer);
    const pid = w.pid;
    const t0 = Date.now();
    await w.stop();
    return {
      // state `gone`: the process ended (its revoked callback, if any, is in its history).
      evidence: { consumer: w.id, pid, stoppedInMs: Date.now() - t0, state: w.exited ? 'gone' : workerState(w) },
      end: restartAtEnd(ctx, spec, w.id),
    };
  },
};
export default leaveConsumer;
