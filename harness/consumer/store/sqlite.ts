/**
 * The entity store's SQLite backend: one better-sqlite3 database (a run's shared file, or
 * `:memory:` for a replay). Its statements run on the spot inside the program (they never
 * yield), so a program that does not wait ends at its first step, synchronously; a transaction is
 * IMMEDIATE (the write lock up front, so other processes wait in busy_timeout instead of
 * failing on a lock upgrade), a savepoint inside an open one.
 */
import type Database from 'better-sqlite3';
import { Ran, stepsOf, throwInto, waitFor, type ColumnKind, type Program, type Statement, type Step, type Steps, type StoreDb } from './program.ts';

const TYPES: Record<ColumnKind, string> = { int: 'INTEGER', real: 'REAL', text: 'TEXT' };

interface SqliteStatement extends Statement {
  readonly prepared: Database.Statement;
}

export class SqliteBackend implements StoreDb {
  readonly kind = 'sqlite';
  private readonly tx: Database.Transaction<(p: Program<unknown>) => unknown>;

  constructor(readonly db: Database.Database) {
    // A transaction's body cannot wait: it ends at its first step (its statements never yield).
    this.tx = db.transaction((p: Program<unknown>) => {
      const r = p.next();
      if (!r.done) throw new Error('a store program waited inside a transaction');
      return r.value;
    });
  }

  table(name: string, columns: Record<string, ColumnKind>): void {
    this.db.exec(createTable(name, columns, TYPES));
  }

  prepare(sql: string): SqliteStatement {
    return { sql, prepared: this.db.prepare(sql) };
  }

  get<T>(stmt: Statement, ...args: unknown[]): Ran<T | undefined> {
    return new Ran<T | undefined>((stmt as SqliteStatement).prepared.get(...args) as T | undefined);
  }

  all<T>(stmt: Statement, ...args: unknown[]): Ran<T[]> {
    return new Ran<T[]>((stmt as SqliteStatement).prepared.all(...args) as T[]);
  }

  run(stmt: Statement, ...args: unknown[]): Ran<number> {
    return new Ran<number>((stmt as SqliteStatement).prepared.run(...args).changes);
  }

  transaction<T>(_key: string, body: () => Program<T>): Ran<T> {
    return new Ran<T>(this.tx.immediate(body()) as T);
  }

  readonly waitFor = waitFor;

  /** To its end at once, or (after a wait) as a promise. */
  runProgram<T>(p: Steps<T>): T | Promise<T> {
    if (p instanceof Ran) return p.value as T; // a statement or transaction that ran already
    return this.resume(stepsOf(p), undefined);
  }

  /** A program that must not wait (a transaction's body, a replay). */
  runSync<T>(p: Steps<T>): T {
    const out = this.runProgram(p);
    if (out instanceof Promise) throw new Error('a store program waited where it must not (inside a transaction, or in a replay)');
    return out;
  }

  /** Goes on with `v` as the last wait's result (or its error, thrown where it waited), until the end or the next wait. */
  private resume<T>(p: Iterator<Step, T, unknown>, v: unknown, failed = false): T | Promise<T> {
    const r = failed ? throwInto(p, v) : p.next(v);
    if (r.done) return r.value;
    const s = r.value;
    if (s.op !== 'wait') throw new Error(`a SQLite store program yielded a ${s.op} step: its statements run at once`);
    return s.promise.then((w) => this.resume(p, w), (e: unknown) => this.resume(p, e, true));
  }

  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  begin(): void {
    if (!this.db.inTransaction) this.db.exec('BEGIN IMMEDIATE');
  }

  commit(): void {
    if (this.db.inTransaction) this.db.exec('COMMIT');
  }

  /** fn in one IMMEDIATE transaction (the programs' own become savepoints). */
  batch<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** Rows this connection inserted, updated or deleted so far (total_changes). */
  writes(): number {
    return (this.db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** CREATE TABLE IF NOT EXISTS, the first column the primary key. */
export function createTable(name: string, columns: Record<string, ColumnKind>, types: Record<ColumnKind, string>): string {
  if (!/^[a-z_]+$/.test(name)) throw new RangeError(`bad table name ${name}`);
  const cols = Object.entries(columns).map(([c, k], i) => `${c} ${types[k]}${i === 0 ? ' PRIMARY KEY' : ' NOT NULL'}`);
  return `CREATE TABLE IF NOT EXISTS ${name} (${cols.join(', ')})`;
}
