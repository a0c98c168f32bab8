/**
 * One table of (key, version, state JSON) rows: what most strategies keep per key. The
 * strategies read a row, decide, and write it back inside one transaction on the key
 * (store/program.ts), so consumer processes sharing the store serialise instead of racing.
 */
import { mapSteps, type Steps, type StoreDb } from '../store/program.ts';
import { stateJson, type EntityState, type VersionedState } from '../../workload/entity.ts';

export interface Rows {
  get(key: string): Steps<VersionedState | undefined>;
  put(key: string, version: number, state: EntityState): Steps<number>;
  all(): Steps<Map<string, VersionedState>>;
}

export function rowTable(db: StoreDb, table: string): Rows {
  db.table(table, { key: 'text', version: 'int', state: 'text' });
  const getRow = db.prepare(`SELECT version, state FROM ${table} WHERE key = ?`);
  const put = db.prepare(
    `INSERT INTO ${table} (key, version, state) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET version = excluded.version, state = excluded.state`,
  );
  const every = db.prepare(`SELECT key, version, state FROM ${table} ORDER BY key`);
  return {
    get: (key) => mapSteps(db.get<{ version: number; state: string }>(getRow, key), parsedRow),
    put: (key, version, state) => db.run(put, key, version, stateJson(state)),
    all: () => mapSteps(db.all<{ key: string; version: number; state: string }>(every), statesOf),
  };
}

/** A stored row with its state parsed (declared once: no closure per read). */
function parsedRow(r: { version: number; state: string } | undefined): VersionedState | undefined {
  return r && { version: r.version, state: JSON.parse(r.state) as EntityState };
}

/** Rows of (key, version, state JSON) as a map, in the rows' order. */
export function statesOf(rows: { key: string; version: number; state: string }[]): Map<string, VersionedState> {
  const out = new Map<string, VersionedState>();
  for (const r of rows) out.set(r.key, { version: r.version, state: JSON.parse(r.state) as EntityState });
  return out;
}
