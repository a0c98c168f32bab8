/**
 * state-machine: a forward-only order lifecycle in the consumer, without versions.
 * Status ranks PLACED < PAID < SHIPPED < DELIVERED; CANCELLED is terminal by an explicit rule
 * (reachable from any status but DELIVERED, left by none). A status that would move the order
 * back, or repeat its status, is ignored; the event's other fields (customer, city, note, or a
 * whole state's fields) follow whatever arrives, onto whatever is stored, even nothing.
 *
 * PLACED, ADDRESS_CHANGED, CANCELLED applied 1, 3, 2 stays cancelled and takes the
 * new city (right); an older address change applied after a newer one leaves the older city,
 * and an update applied before its PLACED is overwritten by PLACED's city (both wrong).
 */
import type { ConsumerStrategy } from './contract.ts';
import { rowTable } from './rows.ts';
import { applyChange } from '../../workload/changes.ts';
import { eventContent, type EntityState } from '../../workload/entity.ts';

const RANK: Record<string, number> = { PLACED: 1, PAID: 2, SHIPPED: 3, DELIVERED: 4 };

/** May the status go from `from` (undefined: none yet) to `to`? */
export function forward(from: string | undefined, to: string): boolean {
  if (from === undefined) return true;
  if (from === 'CANCELLED') return false;
  if (to === 'CANCELLED') return from !== 'DELIVERED';
  return RANK[to] > RANK[from];
}

const stateMachine: ConsumerStrategy = {
  name: 'state-machine',
  description: 'orders only: the status moves forward only (PLACED < PAID < SHIPPED < DELIVERED, CANCELLED terminal); other fields follow whatever arrives',
  pure: true,
  scoresVersion: false,
  unfit: (entity) => (entity.kind === 'order' ? undefined : 'needs an entity with a status (workload.entity.kind: order)'),
  open(db, entity) {
    const rows = rowTable(db, 'entities_state_machine');
    function* forwardOnly(key: string, seq: number) {
      const row = yield* rows.get(key);
      const change = eventContent(entity, key, seq);
      const { status, ...others } = change.set ?? {};
      const set: EntityState = { ...others };
      if (status !== undefined && forward(row?.state.status as string | undefined, String(status))) set.status = status;
      if (Object.keys(set).length === 0 && !change.add) return 'skipped' as const;
      yield* rows.put(key, Math.max(seq, row?.version ?? 0), applyChange(row?.state, { ...change, set }));
      return 'applied' as const;
    }
    const apply = (key: string, seq: number) => db.transaction(key, () => forwardOnly(key, seq));
    return { apply: ({ key, seq }) => apply(key, seq), finalStates: () => rows.all() };
  },
};
export default stateMachine;
