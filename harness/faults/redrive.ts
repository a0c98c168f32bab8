import { checkCapability, type FaultKind } from './contract.ts';

/**
 * Move dead-lettered messages back into the main destination (a redrive
 * puts an old change on top of a newer one). Happens at the window's start.
 */
const redrive: FaultKind = {
  kind: 'redrive',
  destructive: true,
  schema: { type: 'object', properties: {} },
  check: (_spec, scope) => checkCapability(scope.path, scope, 'redrive dead letters', (c) => c.redriveDeadLetters),
  async start(spec, ctx) {
    if (!ctx.admin.redriveDeadLetters) throw new Error(`fault ${spec.name}: broker ${ctx.deployment.broker} has no dead-letter redrive`);
    const moved = await ctx.admin.redriveDeadLetters();
    return { evidence: { moved }, end: async () => undefined };
  },
};
export default redrive;
