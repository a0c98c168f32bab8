/**
 * The parking lot of the park-key poison policy (poison.ts): every message a consumer set
 * aside, in a `parked` table of the run's shared store file (state.sqlite in the run folder),
 * so the lot outlives the run. `convoy parked list` reads it; `convoy parked replay` applies a
 * key's parked messages in version order through the consumers' strategy and unparks the key.
 */
import type Database from 'better-sqlite3';
import { naturalCompare } from './entity-store.ts';

export interface ParkedMessage {
  key: string;
  producer: string | null;
  seq: number;
  /** poison: this message failed and parked its key; key-parked: its key was parked before it came. */
  reason: 'poison' | 'key-parked';
  consumer: string;
  /** When it was set aside, µs (run clock). */
  at: number;
}

export interface ParkedKey {
  key: string;
  /** Why: the message that parked it (the first poison message of the key). */
  why: string;
  messages: number;
  firstSeq: number;
  lastSeq: number;
}

export class ParkingLot {
  private readonly insert: Database.Statement;

  constructor(private readonly db: Database.Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS parked (key TEXT NOT NULL, producer TEXT, seq INTEGER NOT NULL, reason TEXT NOT NULL, consumer TEXT NOT NULL, at INTEGER NOT NULL,
      PRIMARY KEY (key, producer, seq))`);
    this.insert = db.prepare('INSERT OR IGNORE INTO parked (key, producer, seq, reason, consumer, at) VALUES (?, ?, ?, ?, ?, ?)');
  }

  park(m: ParkedMessage): void {
    this.insert.run(m.key, m.producer, m.seq, m.reason, m.consumer, m.at);
  }

  /** Each parked key, by key name. */
  keys(): ParkedKey[] {
    const rows = this.db
      .prepare(
        `SELECT key, COUNT(*) AS messages, MIN(seq) AS firstSeq, MAX(seq) AS lastSeq,
           (SELECT seq FROM parked p2 WHERE p2.key = p.key AND p2.reason = 'poison' ORDER BY seq LIMIT 1) AS poisonSeq
         FROM parked p GROUP BY key ORDER BY key`,
      )
      .all() as { key: string; messages: number; firstSeq: number; lastSeq: number; poisonSeq: number | null }[];
    return rows.sort((a, b) => naturalCompare(a.key, b.key)).map((r) => ({
      key: r.key,
      why: r.poisonSeq === null ? 'parked by another consumer (no poison message seen here)' : `poison message seq ${r.poisonSeq} failed`,
      messages: r.messages,
      firstSeq: r.firstSeq,
      lastSeq: r.lastSeq,
    }));
  }

  /** A key's parked messages, in version order. */
  messages(key: string): ParkedMessage[] {
    return this.db.prepare('SELECT key, producer, seq, reason, consumer, at FROM parked WHERE key = ? ORDER BY seq, producer').all(key) as ParkedMessage[];
  }

  /** Unparks a key: its messages leave the lot. */
  unpark(key: string): number {
    return this.db.prepare('DELETE FROM parked WHERE key = ?').run(key).changes;
  }
}
