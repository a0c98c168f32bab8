/**
 * state-machine: a forward-only order lifecycle in the consumer, without versions.
 * Status ranks PLACED < PAID < SHIPPED < DELIVERED; CANCELLED is terminal by an explicit rule
 * (reachable from any status but DELIVERED, left by none). An event that would move the status
 * back, or repeats it, is ignored whole; an event without a status (an address change, a
 * note) is applied whenever it arrives, onto whatever is stored, even nothing.
 *
 * Seed 001: PLACED, ADDRESS_CHANGED, CANCELLED applied 1, 3, 2 stays cancelled with the new
 * city (right); two address changes swapped leave the older city, and an address change
 * before its PLACED is overwritten by PLACED's city (both wrong).
 */
import type { ConsumerStrategy } from './contract.ts';
import { rowTable } from './rows.ts';
import { applyChange } from '../../workload/changes.ts';
import { eventContent } from '../../workload/entity.ts';

const RANK: Record<string, number> = { PLACED: 1, PAID: 2, SHIPPED: 3, DELIVERED: 4 };

/** May the status go from `from` (undefined: none yet) to `to`? `same` allows staying put. */
export function forward(from: string | undefined, to: string, same: boolean): boolean {
  if (from === undefined) return true;
  if (from === 'CANCELLED') return same && to === from;
  if (to === 'CANCELLED') return from !== 'DELIVERED';
  return same ? RANK[to] >= RANK[from] : RANK[to] > RANK[from];
}

const stateMachine: ConsumerStrategy = {
  name: 'state-machine',
  description: 'orders only: the status moves forward only (PLACED < PAID < SHIPPED < DELIVERED, CANCELLED terminal); other fields follow whatever arrives',
  pure: true,
  scoresVersion: false,
  unfit: (entity) => (entity.kind === 'order' ? undefined : 'needs an entity with a status (workload.entity.kind: order)'),
  open(db, entity) {
    const rows = rowTable(db, 'entities_state_machine');
    // A whole state repeats its status in every message after DELIVERED: staying put is allowed.
    const same = entity.events === 'state';
    const apply = rows.atomically((key: string, seq: number) => {
      const row = rows.get(key);
      const change = eventContent(entity, key, seq);
      const to = change.set?.status as string | undefined;
      if (to !== undefined && !forward(row?.state.status as string | undefined, to, same)) return 'skipped' as const;
      rows.put(key, Math.max(seq, row?.version ?? 0), applyChange(row?.state, change));
      return 'applied' as const;
    });
    return { apply: ({ key, seq }) => apply(key, seq), finalStates: () => rows.all() };
  },
};
export default stateMachine;
