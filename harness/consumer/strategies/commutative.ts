/**
 * commutative: add each delta as it arrives, in any order, remembering nothing. Order cannot
 * hurt it; a redelivered message is added twice.
 */
import type Database from 'better-sqlite3';
import type { ConsumerStrategy, Effect } from './contract.ts';
import { rowTable } from './rows.ts';
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
    open(db: Database.Database, entity: EntitySpec) {
      const table = `entities_${name.replace(/-/g, '_')}`;
      const rows = rowTable(db, table);
      const processed = dedup ? (db.exec(`CREATE TABLE IF NOT EXISTS ${table}_processed (message TEXT PRIMARY KEY)`), db.prepare(`INSERT OR IGNORE INTO ${table}_processed (message) VALUES (?)`)) : undefined;
      // The record and the effect commit together: a crash between them cannot keep one alone.
      const apply = rows.atomically((key: string, seq: number, producer: string | null): Effect => {
        if (processed && processed.run(`${producer ?? ''}\u0000${key}\u0000${seq}`).changes === 0) return 'skipped';
        const row = rows.get(key);
        rows.put(key, Math.max(seq, row?.version ?? 0), applyChange(row?.state, eventContent(entity, key, seq)));
        return 'applied';
      });
      return { apply: ({ key, seq, producer }) => apply(key, seq, producer), finalStates: () => rows.all() };
    },
  };
}

export default commutativeStrategy('commutative', 'deltas added in any order, no deduplication: a redelivered message counts twice', false);
