import { checkCapability, startInWorker, type FaultKind } from './contract.ts';
import { secs } from '../duration.ts';

/**
 * Raise the topic's partition count mid-run. Producers are told to refresh metadata at once
 * (or keep their cached count until their own refresh, with `refreshProducers: false`).
 * Nothing to undo: partitions cannot be removed; the window's end only records the state.
 */
const addPartitions: FaultKind = {
  kind: 'add-partitions',
  destructive: true,
  schema: {
    type: 'object',
    properties: {
      to: { type: 'integer', minimum: 2, description: 'The lane count afterwards: more than the topic starts with (broker.topic.partitions on Kafka).' },
      refreshProducers: { type: 'boolean', description: 'Tell the producers to refresh their metadata at once (default true); false: they keep the old count until their own refresh.' },
    },
    required: ['to'],
  },
  doc: {
    summary: 'Raises the topic\'s partition (lane) count mid-run: keys move to other lanes. Nothing to undo; the window\'s end records the lane count.',
    needs: 'A broker whose destination can gain lanes: Kafka, the memory broker in `mode: partitioned`.',
    notes:
      'A partition increase splits keys across two lanes by design: `split` (expected 0 by default) must be allowed in its window, ' +
      '`split: [{ expect: 0, before: grow }, { expect: ">0", during: grow }]` or `split: any`. ' +
      'On Kafka, consumers read a new partition only after their next metadata refresh, `broker.consumer.metadataMaxAgeMs` ' +
      '(default 300000, 5 min): in a shorter run the messages on it stay unread and the run ends `unknown`. Set it to a few ' +
      'seconds (`consumer: { metadataMaxAgeMs: 2000 }`); `convoy validate` warns when it is longer than the run left after the fault.',
    example: '{ name: grow, kind: add-partitions, to: 4, atMs: 5s, durationMs: 8s }',
    exampleIn: 'broker: { kind: kafka, topic: { partitions: 3 }, consumer: { metadataMaxAgeMs: 2000 } }',
  },
  check(spec, scope) {
    const refused = checkCapability(scope.path, scope, 'add partitions', (c) => c.addPartitions);
    if (refused.length) return refused;
    const lanes = scope.capabilities?.lanes;
    const to = spec.to as number;
    return lanes !== undefined && to <= lanes ? [`${scope.path}.to: expected more than the ${lanes} partitions the topic starts with, got ${to}`] : [];
  },
  // Consumers that notice the new lanes only after the run is over leave their messages unread.
  warn(spec, scope) {
    const seen = scope.capabilities?.newLanesSeenAfter;
    if (!seen || scope.runEndMs === undefined || scope.expectsUnseen) return [];
    const leftMs = scope.runEndMs - spec.atMs;
    if (seen.ms <= leftMs) return [];
    return [
      `${scope.path}: consumers notice the new partitions only after ${seen.setting} (${secs(seen.ms)}), longer than the ${secs(leftMs)} the run has left after the fault: ` +
        `messages on them stay unread and the run ends unknown; set ${seen.setting} below ${secs(leftMs)}`,
    ];
  },
  async start(spec, ctx) {
    const admin = ctx.admin;
    if (!admin.addPartitions || !admin.lanes) throw new Error(`fault ${spec.name}: broker ${ctx.deployment.broker} cannot add partitions`);
    const before = await admin.lanes();
    await admin.addPartitions(spec.to as number);
    const after = await admin.lanes();
    if (spec.refreshProducers !== false) for (const p of ctx.producers()) startInWorker(p, 'add-partitions');
    return {
      evidence: { lanesBefore: before.length, lanesAfter: after.length },
      async end() {
        return { lanes: (await admin.lanes!()).length };
      },
    };
  },
  worker: {
    // Producers pick up the new partition count now.
    producer(_args, side) {
      side.mark('producer-metadata-refresh', { process: side.id });
      void side.client.refreshMetadata?.().then(
        () => side.mark('producer-metadata-refreshed', { process: side.id }),
        (e: Error) => side.log(`metadata refresh failed: ${e.message}`),
      );
    },
  },
};
export default addPartitions;
