/**
 * lww-timestamp: last writer wins by the producing service's wall-clock stamp (ms), the
 * guard `UPDATE ... WHERE updated_at < $ts`. An event is applied only when its stamp is newer
 * than the stored one; an older one is skipped as stale, and so is an equal one (a tie: two
 * events in the same millisecond, which the guard cannot order). Ties are counted apart. What it
 * shows: clocks drift between writers and events tie within a
 * millisecond, so the stamp is not the order. A message without a stamp cannot be ordered and
 * is rejected.
 */
import type { ConsumerStrategy } from './contract.ts';
import { applyChange } from '../../workload/changes.ts';
import { eventContent, stateJson, type EntityState } from '../../workload/entity.ts';
import { value } from '../store/program.ts';
import { statesOf } from './rows.ts';

const lwwTimestamp: ConsumerStrategy = {
  name: 'lww-timestamp',
  description: "apply an event only when its producer's wall-clock timestamp (ms) is newer than the stored one; ties and older stamps are skipped",
  figures: { ties: 'events skipped because their stamp equalled the stored one (two events in the same millisecond)' },
  pure: true,
  scoresVersion: true,
  open(db, entity) {
    db.table('entities_lww', { key: 'text', version: 'int', stamp: 'real', state: 'text' });
    db.table('entities_lww_figures', { name: 'text', n: 'int' });
    const getRow = db.prepare(`SELECT stamp, state FROM entities_lww WHERE key = ?`);
    const put = db.prepare(
      `INSERT INTO entities_lww (key, version, stamp, state) VALUES (?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET version = excluded.version, stamp = excluded.stamp, state = excluded.state`,
    );
    // An atomic increment in both backends: concurrent ones wait for each other's row.
    const tie = db.prepare(`INSERT INTO entities_lww_figures (name, n) VALUES ('ties', 1) ON CONFLICT (name) DO UPDATE SET n = entities_lww_figures.n + 1`);
    const every = db.prepare(`SELECT key, version, state FROM entities_lww ORDER BY key`);
    const figure = db.prepare(`SELECT n FROM entities_lww_figures WHERE name = ?`);
    // Read, compare, write in one transaction on the key: consumer processes serialise on it.
    function* latest(key: string, seq: number, stamp: number) {
      const row = yield* db.get<{ stamp: number; state: string }>(getRow, key);
      if (row && stamp === row.stamp) {
        yield* db.run(tie);
        return 'skipped' as const;
      }
      if (row && stamp < row.stamp) return 'skipped' as const;
      const state = applyChange(row ? (JSON.parse(row.state) as EntityState) : undefined, eventContent(entity, key, seq));
      yield* db.run(put, key, seq, stamp, stateJson(state));
      return 'applied' as const;
    }
    const apply = (key: string, seq: number, stamp: number) => db.transaction(key, () => latest(key, seq, stamp));
    return {
      apply({ key, seq, stampMs }) {
        if (stampMs === undefined) return value('rejected' as const);
        return apply(key, seq, stampMs);
      },
      *finalStates() {
        return statesOf(yield* db.all<{ key: string; version: number; state: string }>(every));
      },
      *figures() {
        return { ties: (yield* db.get<{ n: number }>(figure, 'ties'))?.n ?? 0 };
      },
    };
  },
};
export default lwwTimestamp;
