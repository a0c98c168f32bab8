/**
 * The entity state store shared by every consumer process of a run, so races between consumers
 * are real: one SQLite file (better-sqlite3, WAL) by default, or a PostgreSQL database the run
 * starts (`consumers.store: postgres`; consumers on several hosts need one). The consumers'
 * strategy (harness/consumer/strategies/) keeps its own tables in it, written once for both
 * backends (store/program.ts); the other strategies are scored after the run by replaying the
 * history into a fresh in-memory SQLite store each (replay.ts). A PostgreSQL store is copied
 * into the run's SQLite file at its end (store/postgres.ts), so the analysis reads a file.
 *
 * busy_timeout makes concurrent writers wait for the lock instead of failing.
 */
import Database from 'better-sqlite3';
import { stateJson, type VersionedState } from '../workload/entity.ts';
import type { EntitySpec } from '../workload/changes.ts';
import type { ConsumerStrategy, Delivered, Effect, Held, Released, StrategyContext, StrategyOptions, StrategyStore } from './strategies/contract.ts';
import { SqliteBackend } from './store/sqlite.ts';
import { PostgresBackend } from './store/postgres.ts';
import type { StoreSetting } from '../spec/types.ts';
import { emptyCosts, type StrategyCosts } from './strategies/costs.ts';
import { entityOf } from '../workload/split.ts';

export type { Effect };

export interface StoreOptions {
  /** How long a writer waits for the lock held by another process (default 30 s). */
  busyTimeoutMs?: number;
  /** workload.keys.split: a delivery's sub-key and seq are applied as its entity and version. */
  split?: number;
}

/** Opens (creating if needed) a store file: WAL, busy timeout. `:memory:` for a private one. */
export function openDatabase(path: string, options: StoreOptions = {}): Database.Database {
  const db = new Database(path);
  // busy_timeout first: switching to WAL and creating tables take locks too.
  const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 30_000));
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // Processes that open a new file at the same moment race to switch it to WAL, and SQLite
  // refuses the losers at once (SQLITE_BUSY without calling the busy handler): retry.
  retryWhileBusy(() => db.pragma('journal_mode = WAL'), busyTimeoutMs);
  db.pragma('synchronous = NORMAL');
  return db;
}

/** One strategy's store in one backend. */
export class EntityStore {
  private readonly split: number | undefined;

  private constructor(
    readonly backend: SqliteBackend | PostgresBackend,
    readonly strategy: ConsumerStrategy,
    private readonly store: StrategyStore,
    storeOptions: StoreOptions,
  ) {
    this.split = storeOptions.split;
  }

  /** A SQLite file's store (or `:memory:`), opened at once. */
  static sqlite(path: string, strategy: ConsumerStrategy, entity: EntitySpec, options: StrategyOptions = { kind: strategy.name }, storeOptions: StoreOptions = {}, context?: StrategyContext): EntityStore {
    const backend = new SqliteBackend(openDatabase(path, storeOptions));
    try {
      return new EntityStore(backend, strategy, strategy.open(backend, entity, options, context), storeOptions);
    } catch (err) {
      backend.close();
      throw err;
    }
  }

  /** The store a run's consumers share, by its setting; a PostgreSQL one once its tables exist. */
  static async at(setting: StoreSetting, strategy: ConsumerStrategy, entity: EntitySpec, options: StrategyOptions = { kind: strategy.name }, storeOptions: StoreOptions = {}, context?: StrategyContext): Promise<EntityStore> {
    if (setting.kind === 'sqlite') return EntityStore.sqlite(setting.file, strategy, entity, options, storeOptions, context);
    const backend = new PostgresBackend(setting.url, context?.now);
    try {
      const store = strategy.open(backend, entity, options, context);
      await backend.ready();
      return new EntityStore(backend, strategy, store, storeOptions);
    } catch (err) {
      await backend.close();
      throw err;
    }
  }

  /** Whether programs run to their end at once (SQLite): group commits and batches need it. */
  get synchronous(): boolean {
    return this.backend.kind === 'sqlite';
  }

  /** In a consumer process: the effect, possibly later, or `held` (see StrategyStore.apply). */
  apply(m: Delivered): Effect | Held | Promise<Effect | Held> {
    return this.backend.runProgram(this.store.apply(this.entityDelivered(m)));
  }

  /** In a replay or a group commit, where only pure strategies run on SQLite: the effect at once. */
  applyNow(m: Delivered): Effect {
    const e = this.sqlite().runSync(this.store.apply(this.entityDelivered(m)));
    if (e === 'held') throw new Error(`strategy ${this.strategy.name} did not apply at once: it cannot be replayed`);
    return e;
  }

  /** Split keys: the strategies work on the entity and its version. */
  private entityDelivered(m: Delivered): Delivered {
    if (!this.split) return m;
    const e = entityOf(m.key, m.seq, this.split);
    return { producer: m.producer, key: e.key, seq: e.seq };
  }

  /**
   * When the last apply of this message's key took effect: the strategy's own stamp
   * (StrategyStore.appliedAt), else PostgreSQL's stamp under the key's lock; undefined on SQLite,
   * whose applies end at once.
   */
  appliedAt(m: Delivered): number | undefined {
    const key = this.entityDelivered(m).key;
    return this.store.appliedAt?.(key) ?? (this.backend.kind === 'postgres' ? this.backend.committedAt(key) : undefined);
  }

  /** Whether the strategy may hold messages back (it has a release). */
  get holds(): boolean {
    return this.store.release !== undefined;
  }

  /** Held messages that may leave now (none for a strategy that never holds). */
  async release(): Promise<Released[]> {
    return this.store.release ? this.backend.runProgram(this.store.release()) : [];
  }

  costs(): StrategyCosts {
    return this.store.costs?.() ?? emptyCosts();
  }

  /**
   * Opens a write transaction that stays open across apply() calls (the strategies' own become
   * savepoints) until commit(): the consumer worker's group commit (harness/roles/consumer/group-commit.ts).
   * IMMEDIATE: the write lock is taken at once, so another process waits in busy_timeout
   * instead of failing on a lock upgrade. SQLite only.
   */
  begin(): void {
    this.sqlite().begin();
  }

  /** Commits the transaction begin() opened, if one is open. */
  commit(): void {
    this.sqlite().commit();
  }

  /**
   * Runs fn inside one IMMEDIATE transaction (the strategies' own become savepoints): one commit
   * for a replay, or for a batch of one key's messages (batch mode), taking the write lock up
   * front as the strategies' own transactions do, since other consumer processes share the file.
   * SQLite only.
   */
  batch<T>(fn: () => T): T {
    return this.sqlite().batch(fn);
  }

  /** The strategy's own counts (its `figures`); empty when it keeps none. SQLite only (a PostgreSQL store is read from its copy). */
  figures(): Record<string, number> {
    return this.store.figures ? this.sqlite().runSync(this.store.figures()) : {};
  }

  /** Rows this process inserted, updated or deleted so far: the store's writes. */
  writes(): number {
    return this.backend.writes();
  }

  /** The stored version and state of every key, sorted by key. SQLite only. */
  finalStates(): Map<string, VersionedState> {
    return this.sqlite().runSync(this.store.finalStates());
  }

  close(): void | Promise<void> {
    return this.backend.close();
  }

  private sqlite(): SqliteBackend {
    if (this.backend.kind !== 'sqlite') throw new Error('this needs the SQLite store: PostgreSQL runs every program asynchronously');
    return this.backend;
  }
}

export function openStore(path: string, strategy: ConsumerStrategy, entity: EntitySpec, options?: StrategyOptions, storeOptions?: StoreOptions, context?: StrategyContext): EntityStore {
  return EntityStore.sqlite(path, strategy, entity, options, storeOptions, context);
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

export interface WrongKey {
  key: string;
  expected: VersionedState | null;
  actual: VersionedState | null;
  /** The fields that differ (`version` among them when it is scored); every field when a side is missing. */
  fields: string[];
}

export interface Comparison {
  /** Keys compared: every key with a truth or a stored state, less the unreachable ones. */
  keys: number;
  right: number;
  wrong: number;
  /** Up to `examples` wrong keys, lowest key names first. */
  wrongKeys: WrongKey[];
  /** How many wrong keys each field is wrong in. */
  wrongFields: Record<string, number>;
  /** Keys left out because their truth was unreachable (a lost or abandoned message). */
  unreachable: number;
}

/** The fields in which `a` differs from `e` (`version` first when scored). */
export function differingFields(e: VersionedState | undefined, a: VersionedState | undefined, scoresVersion: boolean): string[] {
  const out: string[] = [];
  if (scoresVersion && e?.version !== a?.version) out.push('version');
  const names = new Set([...Object.keys(e?.state ?? {}), ...Object.keys(a?.state ?? {})]);
  for (const f of [...names].sort()) if (!e || !a || JSON.stringify(e.state[f]) !== JSON.stringify(a.state[f])) out.push(f);
  return out;
}

/**
 * Compares the store's final states with the truth: the state's fields, and the version when
 * `scoresVersion` (a strategy without versions is scored on its fields). A key missing on
 * either side counts as wrong. Keys in `unreachableKeys` are left out and counted apart.
 */
export function compareWithTruth(
  final: Map<string, VersionedState>,
  truth: Map<string, VersionedState>,
  unreachableKeys: Iterable<string> = [],
  examples = 10,
  scoresVersion = true,
): Comparison {
  const unreachable = new Set(unreachableKeys);
  const all = new Set<string>([...truth.keys(), ...final.keys()]);
  let keys = 0;
  let right = 0;
  let unreachableCount = 0;
  const wrong = new Map<string, string[]>();
  const wrongFields: Record<string, number> = {};
  for (const key of all) {
    if (unreachable.has(key)) {
      unreachableCount++;
      continue;
    }
    keys++;
    const e = truth.get(key);
    const a = final.get(key);
    if (e && a && (!scoresVersion || e.version === a.version) && stateJson(e.state) === stateJson(a.state)) {
      right++;
      continue;
    }
    const fields = differingFields(e, a, scoresVersion);
    wrong.set(key, fields);
    for (const f of fields) wrongFields[f] = (wrongFields[f] ?? 0) + 1;
  }
  const names = [...wrong.keys()].sort(naturalCompare);
  return {
    keys,
    right,
    wrong: names.length,
    wrongKeys: names.slice(0, examples).map((key) => ({ key, expected: truth.get(key) ?? null, actual: final.get(key) ?? null, fields: wrong.get(key)! })),
    wrongFields,
    unreachable: unreachableCount,
  };
}

/** k2 before k10. */
export function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
