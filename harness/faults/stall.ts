import type { FaultKind } from './contract.ts';
import { CONSUMER_FIELD, checkConsumerName, consumerNamed, endInWorker, startInWorker } from './contract.ts';

/**
 * The handler of one consumer stops returning while its process keeps running. With
 * librdkafka and a stall beyond max.poll.interval.ms the member is evicted while it is still
 * working on its messages; with kafkajs, heartbeats stop between messages.
 */
const stall: FaultKind = {
  kind: 'stall',
  destructive: false,
  schema: { type: 'object', properties: { consumer: CONSUMER_FIELD }, required: ['consumer'] },
  doc: {
    summary: "One consumer's handlers stop returning for the window while its process keeps running (and polling, where the client polls apart from handling): the messages it holds wait, its lanes' later messages behind them.",
    example: '{ name: stall-busiest, kind: stall, consumer: busiest, atMs: 3s, durationMs: 3s }',
  },
  check: (spec, scope) => checkConsumerName(`${scope.path}.consumer`, spec.consumer, scope),
  async start(spec, ctx) {
    const w = consumerNamed(ctx, spec.consumer);
    startInWorker(w, 'stall', { durationMs: spec.durationMs });
    const before = ctx.admin.describeConsumerGroup ? await ctx.admin.describeConsumerGroup().catch((e: Error) => ({ error: e.message })) : undefined;
    let ended = false;
    return {
      evidence: { consumer: w.id, pid: w.pid, group: before },
      async end() {
        if (ended) return undefined;
        ended = true;
        endInWorker(w, 'stall');
        const after = ctx.admin.describeConsumerGroup ? await ctx.admin.describeConsumerGroup().catch((e: Error) => ({ error: e.message })) : undefined;
        return { group: after };
      },
    };
  },
  worker: {
    // Every handler of the process waits at its end until the stall ends.
    consumer(args) {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      // The runner ends the stall; the timer is a safety net should its message be lost.
      const safety = setTimeout(release, Number(args.durationMs) + 1_000);
      safety.unref();
      return {
        hold: () => held,
        end() {
          clearTimeout(safety);
          release();
        },
      };
    },
  },
};
export default stall;
