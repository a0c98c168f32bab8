import type { ConsumerClient } from '../../broker/contract.ts';
import { loadBroker } from '../../broker/registry.ts';
import { nowMicros } from '../../clock.ts';
import type { ConsumerContext } from './context.ts';

/** Lock or lease renewals the delivery gate made (held messages are renewed until settled). */
export interface Renewals {
  ok: number;
  failed: number;
}

/**
 * The broker's client for this consumer, behind the delivery gate (harness/delivery/gate.ts):
 * at most `inFlightCap` deliveries unsettled, a lane's next one only after the previous was
 * handled. A lane move (rebalance) is recorded, and the open group commit is written before it
 * and before any commit the client makes.
 */
export async function openGate(ctx: ConsumerContext, renewals: Renewals): Promise<ConsumerClient> {
  const { init, group, history } = ctx;
  const broker = await loadBroker(init.brokerKind);
  return broker.consumer(init.endpoint, init.settings, init.names, {
    id: init.id,
    maxInFlight: ctx.inFlightCap,
    onGroupEvent: (e) => {
      group.end();
      history.write({ type: 'rebalance', at: nowMicros(), consumer: init.id, lanes: e.lanes, generation: e.generation, phase: e.phase });
    },
    log: ctx.log,
    beforeCommit: () => group.end(),
    onRenewal: (ok) => void (ok ? renewals.ok++ : renewals.failed++),
  });
}
