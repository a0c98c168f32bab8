import type { FaultKind } from './contract.ts';
import { ownerOf } from './owner-down.ts';

/** The entities' owner service answers every read `latencyMs` later while the fault lasts. */
const ownerLatency: FaultKind = {
  kind: 'owner-latency',
  destructive: false,
  usesOwner: true,
  schema: { type: 'object', properties: { latencyMs: { type: 'integer', minimum: 1, maximum: 60_000, description: 'Added to every answer of the owner, ms (at most a minute).' } }, required: ['latencyMs'] },
  doc: {
    summary: 'The entities\' owner service answers every read `latencyMs` later for the window.',
    needs: 'Starts the owner service for the run.',
    example: '{ name: owner-slow, kind: owner-latency, latencyMs: 200, atMs: 3s, durationMs: 3s }',
  },
  async start(spec, ctx) {
    const owner = ownerOf(ctx);
    const before = owner.latencyMs;
    owner.latencyMs = Number(spec.latencyMs);
    return {
      evidence: { latencyMs: owner.latencyMs },
      async end() {
        owner.latencyMs = before;
        return { latencyMs: owner.latencyMs };
      },
    };
  },
};
export default ownerLatency;
