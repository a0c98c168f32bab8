/**
 * commutative: add each delta as it arrives, in any order, remembering nothing. Order cannot
 * hurt it; a redelivered message is added twice.
 */
import type { ConsumerStrategy, Effect } from './contract.ts';
import { rowTable } from './rows.ts';
import { type Program, type StoreDb } from '../store/program.ts';
import { applyChange, eventsAreDeltas, type EntitySpec } from '../../workload/changes.ts';
import { eventContent } from '../../workload/entity.ts';

/** The strategy, with or without a processed-message record (commutative-dedup.ts). */
export function commutativeStrategy(name: string, description: string, dedup: boolean): ConsumerStrategy {
  return {
    name,
    description,
    pure: true,
    scoresVersion: false,
    unfit: (entity: EntitySpec) =>
      eventsAreDeltas(entity) ? undefined : 'needs events that are deltas (workload.entity.kind wallet or counter, with events: change)',
    open(db: StoreDb, entity: EntitySpec) {
      const table = `entities_${name.replace(/-/g, '_')}`;
      const rows = rowTable(db, table);
      if (dedup) db.table(`${table}_processed`, { message: 'text' });
      const processed = dedup ? db.prepare(`INSERT INTO ${table}_processed (message) VALUES (?) ON CONFLICT (message) DO NOTHING`) : undefined;
      // The record and the effect commit together: a crash between them cannot keep one alone.
      function* add(key: string, seq: number, producer: string | null): Program<Effect> {
        // A message's record is written under its key's lock, so one per key at a time. Its parts
        // are joined by the unit separator: PostgreSQL's text cannot hold a NUL.
        if (processed && (yield* db.run(processed, `${producer ?? ''}\u001f${key}\u001f${seq}`)) === 0) return 'skipped';
        const row = yield* rows.get(key);
        yield* rows.put(key, Math.max(seq, row?.version ?? 0), applyChange(row?.state, eventContent(entity, key, seq)));
        return 'applied';
      }
      const apply = (key: string, seq: number, producer: string | null) => db.transaction(key, () => add(key, seq, producer));
      return { apply: ({ key, seq, producer }) => apply(key, seq, producer), finalStates: () => rows.all() };
    },
  };
}

export default commutativeStrategy('commutative', 'deltas added in any order, no deduplication: a redelivered message counts twice', false);
