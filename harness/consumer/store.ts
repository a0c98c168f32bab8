/**
 * The entity state store shared by every consumer process of a run: one SQLite file
 * (better-sqlite3, WAL), so races between consumers are real. One table per strategy,
 * `entities_naive` and `entities_versioned`, each (key PRIMARY KEY, version, state JSON), so a
 * run may score both strategies on the same deliveries.
 *
 *   naive      apply whatever arrives: an unconditional upsert.
 *   versioned  apply only what is newer than the stored version: one statement, insert if
 *              absent or else `UPDATE ... WHERE version < ?` (an upsert whose update is
 *              conditional); a message not newer is skipped as stale.
 *
 * busy_timeout makes concurrent writers wait for the lock instead of failing.
 */
import Database from 'better-sqlite3';
import { entityStateAt, stateJson, type EntityKind, type EntityState, type VersionedState } from '../workload/entity.ts';

export type Strategy = 'naive' | 'versioned';
export const STRATEGIES: readonly Strategy[] = ['naive', 'versioned'];
export type Effect = 'applied' | 'skipped-stale';

export interface StoreOptions {
  /** The entity kind whose state a version stands for (workload.entity.kind). Default order. */
  entity?: EntityKind;
  /** How long a writer waits for the lock held by another process (default 30 s). */
  busyTimeoutMs?: number;
}

export class EntityStore {
  private readonly db: Database.Database;
  private readonly entity: EntityKind;
  private readonly upsert: Record<Strategy, Database.Statement<[string, number, string]>>;
  private readonly applyBoth: (key: string, version: number, json: string) => Record<Strategy, Effect>;

  constructor(readonly path: string, options: StoreOptions = {}) {
    this.entity = options.entity ?? 'order';
    this.db = new Database(path);
    // busy_timeout first: switching to WAL and creating tables take locks too.
    const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 30_000));
    this.db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // Processes that open a new file at the same moment race to switch it to WAL, and SQLite
    // refuses the losers at once (SQLITE_BUSY without calling the busy handler): retry.
    retryWhileBusy(() => this.db.pragma('journal_mode = WAL'), busyTimeoutMs);
    this.db.pragma('synchronous = NORMAL');
    for (const s of STRATEGIES) {
      this.db.exec(`CREATE TABLE IF NOT EXISTS entities_${s} (key TEXT PRIMARY KEY, version INTEGER NOT NULL, state TEXT NOT NULL)`);
    }
    this.upsert = {
      naive: this.db.prepare(
        `INSERT INTO entities_naive (key, version, state) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET version = excluded.version, state = excluded.state`,
      ),
      versioned: this.db.prepare(
        `INSERT INTO entities_versioned (key, version, state) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET version = excluded.version, state = excluded.state
         WHERE entities_versioned.version < excluded.version`,
      ),
    };
    this.applyBoth = this.db.transaction((key: string, version: number, json: string) => ({
      naive: this.upsert.naive.run(key, version, json).changes > 0 ? ('applied' as const) : ('skipped-stale' as const),
      versioned: this.upsert.versioned.run(key, version, json).changes > 0 ? ('applied' as const) : ('skipped-stale' as const),
    }));
  }

  /**
   * Apply message `version` of `key` under every strategy, in one transaction (one commit
   * instead of one per strategy; each table sees the same writes in the same order as with
   * apply() per strategy). The state is the entity's state at that version.
   */
  applyAll(key: string, version: number): Record<Strategy, Effect> {
    return this.applyBoth(key, version, stateJson(entityStateAt(this.entity, key, version)));
  }

  /**
   * Apply message `version` of `key` under `strategy`. `state` defaults to the entity's state
   * at that version (what the message carries). `producer` is accepted for the caller's
   * convenience; versions are per key.
   */
  apply(strategy: Strategy, key: string, version: number, _producer?: string | null, state?: EntityState): Effect {
    const stmt = this.upsert[strategy];
    if (!stmt) throw new RangeError(`unknown strategy "${strategy}"`);
    const json = stateJson(state ?? entityStateAt(this.entity, key, version));
    return stmt.run(key, version, json).changes > 0 ? 'applied' : 'skipped-stale';
  }

  /** The stored version and state of every key, sorted by key. */
  finalStates(strategy: Strategy): Map<string, VersionedState> {
    const rows = this.db
      .prepare(`SELECT key, version, state FROM entities_${strategy === 'naive' ? 'naive' : 'versioned'} ORDER BY key`)
      .all() as { key: string; version: number; state: string }[];
    const out = new Map<string, VersionedState>();
    for (const r of rows) out.set(r.key, { version: r.version, state: JSON.parse(r.state) as EntityState });
    return out;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** Runs fn, again while SQLite says the database is busy, for up to `ms`. */
function retryWhileBusy<T>(fn: () => T, ms: number): T {
  const deadline = Date.now() + ms;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      return fn();
    } catch (err) {
      if (!String((err as { code?: unknown }).code).startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw err;
      Atomics.wait(pause, 0, 0, 5 + Math.random() * 20); // a synchronous sleep: this is the constructor
    }
  }
}

export function openStore(path: string, options: StoreOptions = {}): EntityStore {
  return new EntityStore(path, options);
}

export interface WrongKey {
  key: string;
  expected: VersionedState | null;
  actual: VersionedState | null;
}

export interface Comparison {
  /** Keys compared: every key with a truth or a stored state, less the unreachable ones. */
  keys: number;
  right: number;
  wrong: number;
  /** Up to `examples` wrong keys, lowest key names first. */
  wrongKeys: WrongKey[];
  /** Keys left out because their truth was unreachable (a lost or abandoned message). */
  unreachable: number;
}

/**
 * Compares the store's final states with the truth. A key missing on either side counts as
 * wrong. Keys in `unreachableKeys` are left out and counted apart.
 */
export function compareWithTruth(
  final: Map<string, VersionedState>,
  truth: Map<string, VersionedState>,
  unreachableKeys: Iterable<string> = [],
  examples = 10,
): Comparison {
  const unreachable = new Set(unreachableKeys);
  const all = new Set<string>([...truth.keys(), ...final.keys()]);
  let keys = 0;
  let right = 0;
  let unreachableCount = 0;
  const wrong: string[] = [];
  for (const key of all) {
    if (unreachable.has(key)) {
      unreachableCount++;
      continue;
    }
    keys++;
    const e = truth.get(key);
    const a = final.get(key);
    if (e && a && e.version === a.version && stateJson(e.state) === stateJson(a.state)) right++;
    else wrong.push(key);
  }
  wrong.sort(naturalCompare);
  return {
    keys,
    right,
    wrong: wrong.length,
    wrongKeys: wrong.slice(0, examples).map((key) => ({ key, expected: truth.get(key) ?? null, actual: final.get(key) ?? null })),
    unreachable: unreachableCount,
  };
}

/** k2 before k10. */
export function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
