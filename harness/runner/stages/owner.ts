import { usesOwner } from '../../consumer/strategies/open.ts';
import { nowMicros } from '../../clock.ts';
import { startOwner } from '../../owner/service.ts';
import type { Stage } from '../context.ts';

/**
 * The entities' owner service (harness/owner/), when the consumers' strategy reads it or a fault
 * acts on it: its URL goes to every worker, its clock starts with the run's, and the fault kinds
 * get its controls.
 */
export const owner: Stage = {
  name: 'owner',
  async applies(ctx) {
    return (await usesOwner(ctx.scenario)) || ctx.scenario.faults.some((f) => ctx.faultKinds.get(f.kind)?.usesOwner);
  },
  async run(ctx) {
    const service = await startOwner(ctx.scenario);
    ctx.defer('stopping the owner', async () => {
      ctx.history.write({ type: 'mark', at: nowMicros(), name: 'owner-served', detail: { byStatus: service.served } });
      await service.close();
    });
    ctx.mark('owner-started', { url: service.url });
    ctx.initExtras.ownerUrl = service.url;
    ctx.onStart.push((startUs) => service.begin(startUs));
    ctx.faultContext.owner = service.control;
    ctx.inRunner.push('owner');
  },
};
