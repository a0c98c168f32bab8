/**
 * What a strategy writes its store's work as, once for every backend: a program, a generator
 * that yields the statements it wants run (`yield* db.get(stmt, key)`) and gets their results
 * back. A backend's driver runs it: SQLite (better-sqlite3) to its end at once, synchronously,
 * with no promise per statement, so the local path pays only a generator step per statement;
 * PostgreSQL with an await per statement. A program may also wait for a promise (`waitFor`, an
 * owner's read): SQLite's driver then goes on asynchronously from there.
 *
 * SQL is written once, with `?` placeholders and the syntax both backends share (ON CONFLICT
 * upserts); tables are declared by their columns' kinds, and each backend writes its own DDL.
 */

/** A column's kind; each backend picks its type (64-bit integers, doubles, text). */
export type ColumnKind = 'int' | 'real' | 'text';

/** A prepared statement, opaque to strategies. */
export interface Statement {
  readonly sql: string;
}

export type Step =
  | { op: 'get' | 'all' | 'run'; stmt: Statement; args: unknown[] }
  /** A transaction over one key: consumer processes serialise on it (see each backend). */
  | { op: 'tx'; key: string; body: () => Program<unknown> }
  | { op: 'wait'; promise: Promise<unknown> };

export type Program<T> = Generator<Step, T, unknown>;

/** A backend as a strategy sees it: declare, prepare, query, transact. */
export interface StoreDb {
  /** Creates the table if absent: columns by kind, the first one the primary key. */
  table(name: string, columns: Record<string, ColumnKind>): void;
  prepare(sql: string): Statement;
}

/** The first row, or undefined. */
export function* get<T>(stmt: Statement, ...args: unknown[]): Program<T | undefined> {
  return (yield { op: 'get', stmt, args }) as T | undefined;
}

/** Every row. */
export function* all<T>(stmt: Statement, ...args: unknown[]): Program<T[]> {
  return (yield { op: 'all', stmt, args }) as T[];
}

/** A write: how many rows it changed. */
export function* run(stmt: Statement, ...args: unknown[]): Program<number> {
  return (yield { op: 'run', stmt, args }) as number;
}

/**
 * `body` as one transaction that serialises with every other transaction on `key` in every
 * process (SQLite: the file's write lock, IMMEDIATE; PostgreSQL: a lock on the key, held to the
 * commit). Inside an open group (SQLite) it becomes a savepoint. `body` must not wait.
 */
export function* transaction<T>(key: string, body: () => Program<T>): Program<T> {
  return (yield { op: 'tx', key, body }) as T;
}

/** Waits for a promise (another service's answer) inside a program, never inside a transaction. */
export function* waitFor<T>(promise: Promise<T>): Program<T> {
  return (yield { op: 'wait', promise }) as T;
}

/** A program that returns a value it already has. */
// eslint-disable-next-line require-yield
export function* value<T>(v: T): Program<T> {
  return v;
}

/** Runs programs: to the end at once where it can (SQLite), else as a promise. */
export interface Driver {
  run<T>(program: Program<T>): T | Promise<T>;
}
