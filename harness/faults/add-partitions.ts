import { checkCapability, startInWorker, type FaultKind } from './contract.ts';

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
    properties: { to: { type: 'integer', minimum: 2 }, refreshProducers: { type: 'boolean' } },
    required: ['to'],
  },
  check(spec, scope) {
    const refused = checkCapability(scope.path, scope, 'add partitions', (c) => c.addPartitions);
    if (refused.length) return refused;
    const lanes = scope.capabilities?.lanes;
    const to = spec.to as number;
    return lanes !== undefined && to <= lanes ? [`${scope.path}.to: expected more than the ${lanes} partitions the topic starts with, got ${to}`] : [];
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
