/**
 * The entity store's SQLite backend: one better-sqlite3 database (a run's shared file, or
 * `:memory:` for a replay). Programs run synchronously to their end; a transaction is
 * IMMEDIATE (the write lock up front, so other processes wait in busy_timeout instead of
 * failing on a lock upgrade), a savepoint inside an open one.
 */
import type Database from 'better-sqlite3';
import type { ColumnKind, Program, Statement, Step, StoreDb } from './program.ts';

const TYPES: Record<ColumnKind, string> = { int: 'INTEGER', real: 'REAL', text: 'TEXT' };

interface SqliteStatement extends Statement {
  readonly prepared: Database.Statement;
}

export class SqliteBackend implements StoreDb {
  readonly kind = 'sqlite';
  private readonly tx: Database.Transaction<(p: Program<unknown>) => unknown>;

  constructor(readonly db: Database.Database) {
    this.tx = db.transaction((p: Program<unknown>) => this.runSync(p));
  }

  table(name: string, columns: Record<string, ColumnKind>): void {
    this.db.exec(createTable(name, columns, TYPES));
  }

  prepare(sql: string): SqliteStatement {
    return { sql, prepared: this.db.prepare(sql) };
  }

  /** To its end at once, or (after a wait) as a promise. */
  run<T>(p: Program<T>): T | Promise<T> {
    return this.resume(p, undefined);
  }

  /** A program that must not wait (a transaction's body, a replay). */
  runSync<T>(p: Program<T>): T {
    const out = this.run(p);
    if (out instanceof Promise) throw new Error('a store program waited where it must not (inside a transaction, or in a replay)');
    return out;
  }

  /** Goes on with `v` as the last step's result (or its error, thrown where it yielded), until the end or a wait. */
  private resume<T>(p: Program<T>, v: unknown, failed = false): T | Promise<T> {
    let r = failed ? p.throw(v) : p.next(v);
    for (;;) {
      if (r.done) return r.value;
      const s = r.value;
      if (s.op === 'wait') return s.promise.then((w) => this.resume(p, w), (e: unknown) => this.resume(p, e, true));
      let out: unknown;
      try {
        out = this.step(s);
      } catch (e) {
        r = p.throw(e);
        continue;
      }
      r = p.next(out);
    }
  }

  private step(s: Exclude<Step, { op: 'wait' }>): unknown {
    switch (s.op) {
      case 'get':
        return (s.stmt as SqliteStatement).prepared.get(...s.args);
      case 'all':
        return (s.stmt as SqliteStatement).prepared.all(...s.args);
      case 'run':
        return (s.stmt as SqliteStatement).prepared.run(...s.args).changes;
      case 'tx':
        return this.tx.immediate(s.body());
    }
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
