/**
 * The order service's database: one SQLite file in WAL mode shared by every instance and relay
 * process, as a service's instances share one database. SQLite serialises writers (BEGIN
 * IMMEDIATE), so the order in which write transactions commit is the service's real order of
 * events: an event's `commit_index` is its order's event count inside its own transaction,
 * 1, 2, 3, ... per order, whatever version the mode gave it.
 *
 *   orders(key, version, events)         the entity: its current version and how many events it has
 *   events(id, key, version, commit_index, event, lane, sent, at)
 *                                         every event; with an outbox, `sent` is the relay's mark
 */
import Database from 'better-sqlite3';

export interface StoredEvent {
  /** The event's own id (rowid order = commit order across orders). */
  id: number;
  key: string;
  /** What the service numbered it (a duplicate in `direct` mode). */
  version: number;
  /** Its place in its order's commit order, from 1. */
  commitIndex: number;
  event: string;
  lane: number;
  /** When it committed (run clock, µs). */
  at: number;
}

export class OrderStore {
  readonly db: Database.Database;
  private readonly readNext: Database.Statement<[string], { next: number }>;
  private readonly readOrder: Database.Statement<[string], { version: number; events: number }>;
  private readonly upsert: Database.Statement<[string, number, number]>;
  private readonly insert: Database.Statement<[string, number, number, string, number, number, number]>;

  constructor(file: string) {
    this.db = new Database(file, { timeout: 30_000 });
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS orders (key TEXT PRIMARY KEY, version INTEGER NOT NULL, events INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS events (
        id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, version INTEGER NOT NULL, commit_index INTEGER NOT NULL,
        event TEXT NOT NULL, lane INTEGER NOT NULL, sent INTEGER NOT NULL DEFAULT 0, at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS outbox ON events (lane, sent, id);
    `);
    this.readNext = this.db.prepare('SELECT COALESCE(MAX(version), 0) + 1 AS next FROM events WHERE key = ?');
    this.readOrder = this.db.prepare('SELECT version, events FROM orders WHERE key = ?');
    this.upsert = this.db.prepare('INSERT INTO orders (key, version, events) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET version = excluded.version, events = excluded.events');
    this.insert = this.db.prepare('INSERT INTO events (key, version, commit_index, event, lane, sent, at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  }

  /** The racy numbering, outside any transaction: the highest version so far, plus one. */
  nextVersion(key: string): number {
    return this.readNext.get(key)!.next;
  }

  /**
   * One write transaction: the order's event count goes up by one (its commit index), its
   * version becomes `version` (or, with null, its own version plus one, numbered inside the
   * transaction), and the event row is written (`sent` 0 for an outbox relay to publish).
   */
  commit(key: string, version: number | null, event: string, lane: number, outbox: boolean, at: number): StoredEvent {
    return this.db.transaction((): StoredEvent => {
      const row = this.readOrder.get(key);
      const commitIndex = (row?.events ?? 0) + 1;
      const v = version ?? (row?.version ?? 0) + 1;
      this.upsert.run(key, v, commitIndex);
      const id = Number(this.insert.run(key, v, commitIndex, event, lane, outbox ? 0 : 1, at).lastInsertRowid);
      return { id, key, version: v, commitIndex, event, lane, at };
    }).immediate();
  }

  /** A lane's unsent outbox rows, oldest first. */
  unsent(lane: number, limit: number): StoredEvent[] {
    return this.db
      .prepare('SELECT id, key, version, commit_index AS commitIndex, event, lane, at FROM events WHERE lane = ? AND sent = 0 ORDER BY id LIMIT ?')
      .all(lane, limit) as StoredEvent[];
  }

  markSent(ids: number[]): void {
    if (ids.length === 0) return;
    const mark = this.db.prepare('UPDATE events SET sent = 1 WHERE id = ?');
    this.db.transaction(() => ids.forEach((id) => mark.run(id))).immediate();
  }

  /** Outbox rows not yet marked sent, every lane. */
  backlog(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM events WHERE sent = 0').get() as { n: number }).n;
  }

  /** The final state, per order: version and event count (the truth of what the service did). */
  orders(): { key: string; version: number; events: number }[] {
    return this.db.prepare('SELECT key, version, events FROM orders ORDER BY key').all() as { key: string; version: number; events: number }[];
  }

  close(): void {
    this.db.close();
  }
}

/** The lane (outbox relay) of an order: a stable hash of its id. */
export function laneOf(key: string, lanes: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % lanes;
}
