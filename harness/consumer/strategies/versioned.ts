/**
 * versioned: keep the version of the last applied message per key and skip anything not newer
 * (a stale or duplicate message). A whole-state message newer than the stored one is applied
 * whatever the gap (newer state wins). A change must be the next one (stored + 1; 1 for a new
 * key): one further ahead is rejected and counted, since a delta cannot skip its predecessor
 * (holding it until the gap fills is a resequencer's job). `gaps: apply` applies it anyway,
 * which is what a version check meant for whole states does to deltas.
 */
import type { ConsumerStrategy } from './contract.ts';
import { rowTable } from './rows.ts';
import { mapSteps } from '../store/program.ts';
import { applyChange } from '../../workload/changes.ts';
import { entityStateAt, eventContent, stateJson } from '../../workload/entity.ts';

/** The conditional upsert's effect by the rows it changed. */
const writtenOrSkipped = (n: number) => (n > 0 ? 'applied' : 'skipped') as 'applied' | 'skipped';

const versioned: ConsumerStrategy = {
  name: 'versioned',
  description: 'skip what is not newer than the stored version; with change events, reject a change that is not the next one',
  options: {
    gaps: {
      enum: ['reject', 'apply'],
      default: 'reject',
      description: 'Change events more than one version ahead: reject (count them; default) or apply anyway.',
    },
  },
  pure: true,
  scoresVersion: true,
  open(db, entity, options) {
    const rows = rowTable(db, 'entities_versioned');
    const applyGaps = options.gaps === 'apply';
    // Whole states: one statement, an upsert whose update is conditional.
    const newer = db.prepare(
      `INSERT INTO entities_versioned (key, version, state) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET version = excluded.version, state = excluded.state
       WHERE entities_versioned.version < excluded.version`,
    );
    function* change(key: string, seq: number) {
      const row = yield* rows.get(key);
      const stored = row?.version ?? 0;
      if (seq <= stored) return 'skipped' as const;
      if (seq > stored + 1 && !applyGaps) return 'rejected' as const;
      yield* rows.put(key, seq, applyChange(row?.state, eventContent(entity, key, seq)));
      return 'applied' as const;
    }
    const next = (key: string, seq: number) => db.transaction(key, () => change(key, seq));
    return {
      apply({ key, seq }) {
        if (entity.events === 'change') return next(key, seq);
        // The whole state alone (eventContent's `set`, without the event's name beside it).
        return mapSteps(db.run(newer, key, seq, stateJson(entityStateAt(entity.kind, key, seq))), writtenOrSkipped);
      },
      finalStates: () => rows.all(),
    };
  },
};
export default versioned;
