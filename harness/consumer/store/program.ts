/**
 * What a strategy writes its store's work as, once for every backend: a program, a generator
 * that runs its statements through the backend (`yield* db.get(stmt, key)`) and gets their
 * results back. SQLite's statements run on the spot, inside the generator, and never yield
 * (better-sqlite3 is synchronous): a program ends at its first `next()`, with no promise and no
 * step object per statement. PostgreSQL's statements yield a step that its driver awaits. A
 * program may also wait for a promise (`db.waitFor`, an owner's read): SQLite's driver then
 * goes on asynchronously from there.
 *
 * A program's generator function is declared once (in a strategy's `open`), never as a closure
 * per message: V8 makes the first generator of each new generator closure slowly (about 1-2 µs,
 * a third of a grouped SQLite apply), while one declared once costs tens of nanoseconds. So a
 * transaction's body is `() => change(key, seq)`, an arrow around a declared generator.
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
/** What a statement is in a program (`yield* db.get(...)`): steps to yield, or none when it ran already. */
export type Steps<T> = Iterable<Step, T, unknown>;

/** A backend as a strategy sees it: declare, prepare, query, transact, wait. */
export interface StoreDb {
  /** Creates the table if absent: columns by kind, the first one the primary key. */
  table(name: string, columns: Record<string, ColumnKind>): void;
  prepare(sql: string): Statement;
  /** The first row, or undefined. */
  get<T>(stmt: Statement, ...args: unknown[]): Steps<T | undefined>;
  /** Every row. */
  all<T>(stmt: Statement, ...args: unknown[]): Steps<T[]>;
  /** A write: how many rows it changed. */
  run(stmt: Statement, ...args: unknown[]): Steps<number>;
  /**
   * `body` as one transaction that serialises with every other transaction on `key` in every
   * process (SQLite: the file's write lock, IMMEDIATE; PostgreSQL: a lock on the key, held to the
   * commit). Inside an open group (SQLite) it becomes a savepoint. `body` must not wait; it is an
   * arrow that calls a generator declared once (above), not a `function*` written in place.
   */
  transaction<T>(key: string, body: () => Program<T>): Steps<T>;
  /** Waits for a promise (another service's answer), never inside a transaction. */
  waitFor<T>(promise: Promise<T>): Program<T>;
}

/** Statements as steps for a driver that awaits them (PostgreSQL). */
export const yielding = {
  *get<T>(stmt: Statement, ...args: unknown[]): Program<T | undefined> {
    return (yield { op: 'get', stmt, args }) as T | undefined;
  },
  *all<T>(stmt: Statement, ...args: unknown[]): Program<T[]> {
    return (yield { op: 'all', stmt, args }) as T[];
  },
  *run(stmt: Statement, ...args: unknown[]): Program<number> {
    return (yield { op: 'run', stmt, args }) as number;
  },
  *transaction<T>(key: string, body: () => Program<T>): Program<T> {
    return (yield { op: 'tx', key, body }) as T;
  },
};

/** A wait, in every backend. */
export function* waitFor<T>(promise: Promise<T>): Program<T> {
  return (yield { op: 'wait', promise }) as T;
}

/**
 * A result already there, as steps that yield nothing: `yield*` gets `value` at once. One object
 * is the iterable, its iterator and its result (SQLite's statements: the cheapest `yield*`).
 */
export class Ran<T> implements Iterable<Step, T, unknown>, Iterator<Step, T, unknown>, IteratorReturnResult<T> {
  readonly done = true;
  constructor(public value: T) {}
  [Symbol.iterator](): Iterator<Step, T, unknown> {
    return this;
  }
  next(): IteratorReturnResult<T> {
    return this;
  }
}

/** `f` of what the steps return: at once when they ran already (SQLite), else after them. */
export function mapSteps<T, U>(steps: Steps<T>, f: (v: T) => U): Steps<U> {
  if (steps instanceof Ran) {
    // A statement's result is a fresh Ran, used once: mapped in place (one object fewer per read).
    const ran = steps as unknown as Ran<unknown>;
    ran.value = f(ran.value as T);
    return ran as Ran<U>;
  }
  return mapped(steps, f);
}

function* mapped<T, U>(steps: Steps<T>, f: (v: T) => U): Program<U> {
  return f(yield* steps);
}

/** The iterator of a program or of a statement's steps. */
export function stepsOf<T>(p: Steps<T>): Iterator<Step, T, unknown> {
  return p[Symbol.iterator]();
}

/** Throws `e` into a program where it yielded (an iterator without `throw` cannot catch it). */
export function throwInto<T>(it: Iterator<Step, T, unknown>, e: unknown): IteratorResult<Step, T> {
  if (!it.throw) throw e;
  return it.throw(e);
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
