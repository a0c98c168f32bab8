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
import { eventContent, stateJson, type EntityState, type VersionedState } from '../../workload/entity.ts';

const lwwTimestamp: ConsumerStrategy = {
  name: 'lww-timestamp',
  description: "apply an event only when its producer's wall-clock timestamp (ms) is newer than the stored one; ties and older stamps are skipped",
  figures: { ties: 'events skipped because their stamp equalled the stored one (two events in the same millisecond)' },
  pure: true,
  scoresVersion: true,
  open(db, entity) {
    db.exec(`CREATE TABLE IF NOT EXISTS entities_lww (key TEXT PRIMARY KEY, version INTEGER NOT NULL, stamp REAL NOT NULL, state TEXT NOT NULL)`);
    db.exec(`CREATE TABLE IF NOT EXISTS entities_lww_figures (name TEXT PRIMARY KEY, n INTEGER NOT NULL)`);
    const get = db.prepare(`SELECT stamp, state FROM entities_lww WHERE key = ?`);
    const put = db.prepare(
      `INSERT INTO entities_lww (key, version, stamp, state) VALUES (?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET version = excluded.version, stamp = excluded.stamp, state = excluded.state`,
    );
    const tie = db.prepare(`INSERT INTO entities_lww_figures (name, n) VALUES ('ties', 1) ON CONFLICT (name) DO UPDATE SET n = n + 1`);
    const all = db.prepare(`SELECT key, version, state FROM entities_lww ORDER BY key`);
    const figure = db.prepare(`SELECT n FROM entities_lww_figures WHERE name = ?`);
    // Read, compare, write in one IMMEDIATE transaction: consumer processes serialise on it.
    const apply = db.transaction((key: string, seq: number, stamp: number) => {
      const row = get.get(key) as { stamp: number; state: string } | undefined;
      if (row && stamp === row.stamp) {
        tie.run();
        return 'skipped' as const;
      }
      if (row && stamp < row.stamp) return 'skipped' as const;
      const state = applyChange(row ? (JSON.parse(row.state) as EntityState) : undefined, eventContent(entity, key, seq));
      put.run(key, seq, stamp, stateJson(state));
      return 'applied' as const;
    });
    return {
      apply({ key, seq, stampMs }) {
        if (stampMs === undefined) return 'rejected';
        return apply.immediate(key, seq, stampMs);
      },
      finalStates() {
        const out = new Map<string, VersionedState>();
        for (const r of all.all() as { key: string; version: number; state: string }[]) out.set(r.key, { version: r.version, state: JSON.parse(r.state) as EntityState });
        return out;
      },
      figures: () => ({ ties: (figure.get('ties') as { n: number } | undefined)?.n ?? 0 }),
    };
  },
};
export default lwwTimestamp;
