/**
 * One table of (key, version, state JSON) rows: what most strategies keep per key. The
 * strategies read a row, decide, and write it back inside one IMMEDIATE transaction, so
 * consumer processes sharing the file serialise on the write lock instead of racing.
 */
import type Database from 'better-sqlite3';
import { stateJson, type EntityState, type VersionedState } from '../../workload/entity.ts';

export interface Rows {
  get(key: string): VersionedState | undefined;
  put(key: string, version: number, state: EntityState): void;
  all(): Map<string, VersionedState>;
  /** fn inside one IMMEDIATE transaction. */
  atomically<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
}

export function rowTable(db: Database.Database, table: string): Rows {
  if (!/^[a-z_]+$/.test(table)) throw new RangeError(`bad table name ${table}`);
  db.exec(`CREATE TABLE IF NOT EXISTS ${table} (key TEXT PRIMARY KEY, version INTEGER NOT NULL, state TEXT NOT NULL)`);
  const get = db.prepare(`SELECT version, state FROM ${table} WHERE key = ?`);
  const put = db.prepare(
    `INSERT INTO ${table} (key, version, state) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET version = excluded.version, state = excluded.state`,
  );
  const all = db.prepare(`SELECT key, version, state FROM ${table} ORDER BY key`);
  return {
    get(key) {
      const r = get.get(key) as { version: number; state: string } | undefined;
      return r && { version: r.version, state: JSON.parse(r.state) as EntityState };
    },
    put(key, version, state) {
      put.run(key, version, stateJson(state));
    },
    all() {
      const out = new Map<string, VersionedState>();
      for (const r of all.all() as { key: string; version: number; state: string }[]) out.set(r.key, { version: r.version, state: JSON.parse(r.state) as EntityState });
      return out;
    },
    atomically(fn) {
      const tx = db.transaction(fn);
      return (...args) => tx.immediate(...args);
    },
  };
}
