/**
 * The entity store's PostgreSQL backend (node-postgres): for consumers on several hosts, which
 * one SQLite file cannot serve. Programs run with an await per statement, on a pool of
 * connections (one per transaction in flight).
 *
 * A transaction locks its key first (`pg_advisory_xact_lock` on a hash of it, held to the
 * commit), at READ COMMITTED: the per-key form of SQLite's write lock. Every strategy's
 * transaction reads and writes one key's rows, so this serialises exactly what must be
 * serialised (the versioned compare-and-set across processes) and nothing else. Not
 * SELECT ... FOR UPDATE: it cannot lock a row that does not exist yet, and two consumers
 * applying a key's first messages would both read nothing and the second upsert would overwrite
 * the first. Not SERIALIZABLE: correct, but a hot key would abort and retry often (and btree
 * page locks abort unrelated keys too). A hash collision only serialises two keys.
 * A single statement outside a transaction (an upsert whose update is conditional) is atomic
 * in PostgreSQL by itself.
 */
import type Database from 'better-sqlite3';
import pg from 'pg';
import { stepsOf, throwInto, waitFor, yielding, type ColumnKind, type Program, type Statement, type Step, type Steps, type StoreDb } from './program.ts';
import { createTable, SqliteBackend } from './sqlite.ts';

const TYPES: Record<ColumnKind, string> = { int: 'BIGINT', real: 'DOUBLE PRECISION', text: 'TEXT' };
// Versions and counts fit a double: BIGINT as a number, not node-postgres's default string.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

interface PgStatement extends Statement {
  readonly name: string;
  readonly text: string;
}

type Queryable = pg.Pool | pg.PoolClient;

export class PostgresBackend implements StoreDb {
  readonly kind = 'postgres';
  private readonly pool: pg.Pool;
  private readonly ddl: string[] = [];
  private statements = 0;
  private changes = 0;
  /** When each key's last transaction committed, stamped under its lock (see committedAt). */
  private readonly committed = new Map<string, number>();

  constructor(
    readonly url: string,
    private readonly now: () => number = () => Date.now() * 1000,
    poolSize = 16,
  ) {
    this.pool = new pg.Pool({ connectionString: url, max: poolSize });
    // A connection's error (the server stopped) is not the run's: the query it fails says so.
    this.pool.on('error', () => {});
    this.pool.on('connect', (client) => client.on('error', () => {}));
  }

  table(name: string, columns: Record<string, ColumnKind>): void {
    this.ddl.push(createTable(name, columns, TYPES));
  }

  prepare(sql: string): PgStatement {
    let n = 0;
    return { sql, text: sql.replace(/\?/g, () => `$${++n}`), name: `s${++this.statements}` };
  }

  /**
   * Creates the declared tables. Processes that open the store at once would race in CREATE
   * TABLE IF NOT EXISTS (PostgreSQL can fail one on its catalogue's unique index): one at a time.
   */
  async ready(): Promise<void> {
    if (this.ddl.length === 0) return;
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN; SELECT pg_advisory_xact_lock(0)');
      for (const sql of this.ddl.splice(0)) await c.query(sql);
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  readonly get = yielding.get;
  readonly all = yielding.all;
  readonly run = yielding.run;
  readonly transaction = yielding.transaction;
  readonly waitFor = waitFor;

  /** To its end, a statement's step awaited at a time. */
  runProgram<T>(p: Steps<T>): Promise<T> {
    return this.drive(p, this.pool);
  }

  /** To the end; a step's error is thrown into the program where it yielded. */
  private async drive<T>(steps: Steps<T>, on: Queryable): Promise<T> {
    const p = stepsOf(steps);
    let r = p.next();
    for (;;) {
      if (r.done) return r.value;
      let out: unknown;
      try {
        out = await this.step(r.value, on);
      } catch (e) {
        r = throwInto(p, e);
        continue;
      }
      r = p.next(out);
    }
  }

  private async step(s: Step, on: Queryable): Promise<unknown> {
    switch (s.op) {
      case 'wait':
        return s.promise;
      case 'tx':
        return on === this.pool ? this.inTransaction(s.key, s.body) : this.drive(s.body(), on);
      default: {
        const stmt = s.stmt as PgStatement;
        const r = await on.query({ name: stmt.name, text: stmt.text, values: s.args });
        if (s.op === 'run') {
          this.changes += r.rowCount ?? 0;
          return r.rowCount ?? 0;
        }
        return s.op === 'get' ? r.rows[0] : r.rows;
      }
    }
  }

  private async inTransaction(key: string, body: () => Program<unknown>): Promise<unknown> {
    const c = await this.pool.connect();
    try {
      // One round trip: a simple query with the hash as a literal (no parameter to escape).
      await c.query(`BEGIN; SELECT pg_advisory_xact_lock(${keyHash(key)})`);
      const out = await this.drive(body(), c);
      this.committed.set(key, this.now());
      await c.query('COMMIT');
      return out;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  /**
   * When the last transaction on `key` took effect: stamped before its COMMIT, while it held the
   * key's lock, so stamps of one key follow the commits' order across processes (the consumer
   * records it as the apply's end).
   */
  committedAt(key: string): number | undefined {
    return this.committed.get(key);
  }

  /** Rows this process's statements inserted, updated or deleted. */
  writes(): number {
    return this.changes;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** A signed 64-bit FNV-1a hash of the key, as a decimal literal for pg_advisory_xact_lock. */
export function keyHash(key: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < key.length; i++) {
    h ^= BigInt(key.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return BigInt.asIntN(64, h).toString();
}

/**
 * Copies every table of the PostgreSQL store into a SQLite database (the run's state.sqlite),
 * same names, columns and rows: the analysis then reads the live strategy's final state from
 * the run's files, as it does after a SQLite run, and the server can go.
 */
export async function copyToSqlite(url: string, into: Database.Database): Promise<{ tables: number; rows: number }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const cols = await c.query<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
    );
    const tables = new Map<string, Record<string, ColumnKind>>();
    for (const r of cols.rows) {
      const kind: ColumnKind = r.data_type === 'bigint' || r.data_type === 'integer' ? 'int' : r.data_type === 'double precision' ? 'real' : 'text';
      tables.set(r.table_name, { ...tables.get(r.table_name), [r.column_name]: kind });
    }
    let rows = 0;
    const sqlite = new SqliteBackend(into);
    for (const [table, columns] of tables) {
      sqlite.table(table, columns);
      const names = Object.keys(columns);
      const insert = into.prepare(`INSERT OR REPLACE INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`);
      const got = await c.query({ text: `SELECT ${names.join(', ')} FROM ${table}`, rowMode: 'array' });
      into.transaction(() => {
        for (const row of got.rows as unknown[][]) insert.run(...row);
      })();
      rows += got.rows.length;
    }
    return { tables: tables.size, rows };
  } finally {
    await c.end().catch(() => {});
  }
}
