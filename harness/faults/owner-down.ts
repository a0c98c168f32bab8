import type { FaultContext, FaultKind } from './contract.ts';
import type { OwnerControl } from '../owner/service.ts';

/** The entities' owner service answers 503 to every read while the fault lasts. */
const ownerDown: FaultKind = {
  kind: 'owner-down',
  destructive: false,
  usesOwner: true,
  schema: { type: 'object', properties: {} },
  doc: {
    summary: 'The entities\' owner service answers 503 to every read for the window: strategies that read the owner (notification, resequencer) cannot.',
    needs: 'Starts the owner service for the run.',
    example: '{ name: owner-out, kind: owner-down, atMs: 3s, durationMs: 3s }',
  },
  async start(_spec, ctx) {
    const owner = ownerOf(ctx);
    owner.down = true;
    return {
      evidence: { down: true },
      async end() {
        owner.down = false;
        return { down: false };
      },
    };
  },
};
export default ownerDown;

/** The run's owner service (the run starts one for a fault that uses it). */
export function ownerOf(ctx: FaultContext): OwnerControl {
  if (!ctx.owner) throw new Error('the run has no owner service');
  return ctx.owner;
}
