import { AsciiTable, NOT_ASCII } from './asciiTable.ts';

/** Tables up to this size keep a Map in front (see `small`). */
const SMALL_LIMIT = 1 << 16;
/** Most strings idMany takes at once. */
export const BATCH = 256;

/**
 * Interns strings to dense integer ids (0, 1, 2, ... in first-seen order). Ids depend on
 * input order, so nothing that reaches a result may compare ids: compare `value(id)` instead.
 * ASCII strings live in a typed-array table that also takes them as bytes (`idBytes`);
 * others in a Map. A string is in exactly one of the two, so both paths agree on ids.
 */
export class Interner {
  private readonly ascii = new AsciiTable();
  private readonly ids = new Map<string, number>();
  private readonly values: string[] = [];
  // One-entry cache: producers and consumers repeat line after line.
  private lastValue = '';
  private lastId = -1;
  /**
   * While the table is small (producers, consumers, lanes, a typical run's keys), a Map in
   * front of it: V8 caches a string's hash in the string, so looking up the same few string
   * objects again and again costs less than hashing their text. Dropped once the table
   * outgrows it (a million keys).
   */
  private small: Map<string, number> | null = new Map();
  /** idMany's hashes, and a value its loads feed (so they are not optimised away). */
  private readonly hashes = new Int32Array(BATCH);
  private touched = 0;

  /** Whether id() is a Map lookup: then batching lookups (idMany) gains nothing. */
  get isSmall(): boolean {
    return this.small !== null;
  }

  get size(): number {
    return this.values.length;
  }

  id(s: string): number {
    if (s === this.lastValue && this.lastId >= 0) return this.lastId;
    const small = this.small;
    if (small !== null) {
      const hit = small.get(s);
      if (hit !== undefined) {
        this.lastValue = s;
        this.lastId = hit;
        return hit;
      }
    }
    let id = this.ascii.getString(s);
    if (id === -1) {
      id = this.values.length;
      const own = detach(s);
      this.ascii.addString(own, id);
      this.values.push(own);
    } else if (id === NOT_ASCII) {
      id = this.ids.get(s) ?? -1;
      if (id < 0) {
        id = this.values.length;
        const own = detach(s);
        this.ids.set(own, id);
        this.values.push(own);
      }
    }
    if (small !== null) {
      if (this.values.length > SMALL_LIMIT) this.small = null;
      else small.set(this.values[id], id);
    }
    this.lastValue = s;
    this.lastId = id;
    return id;
  }

  /** The id of `s` if it is interned, else -1 (interns nothing). */
  find(s: string): number {
    const id = this.ascii.getString(s);
    return id === NOT_ASCII ? (this.ids.get(s) ?? -1) : id;
  }

  /**
   * Interns strings[0 .. n) into targets[i][positions[i]]: the same ids, in the same order, as
   * n calls of id(). For a large table, the slots of all of them are loaded first in one tight
   * loop, so that their cache misses overlap instead of each lookup waiting on its own.
   */
  idMany(strings: string[], n: number, targets: Int32Array[], positions: Int32Array): void {
    if (this.small === null) {
      const hashes = this.hashes;
      let u = 0;
      let prev = this.lastValue;
      for (let i = 0; i < n; i++) {
        const s = strings[i];
        if (s !== prev) hashes[u++] = this.ascii.hashString((prev = s));
      }
      let x = 0;
      for (let j = 0; j < u; j++) x ^= this.ascii.slotWord(hashes[j]);
      this.touched ^= x;
    }
    for (let i = 0; i < n; i++) targets[i][positions[i]] = this.id(strings[i]);
  }

  /** The id of the ASCII text in buf[from, to) (the caller has checked it is ASCII). */
  idBytes(buf: Buffer, from: number, to: number): number {
    let id = this.ascii.getBytes(buf, from, to);
    if (id < 0) {
      id = this.values.length;
      this.ascii.addBytes(buf, from, to, id);
      this.values.push(buf.toString('latin1', from, to)); // a new flat string: pins no chunk
    }
    return id;
  }

  value(id: number): string {
    return this.values[id];
  }
}

/**
 * A copy of `s` that does not keep a larger string alive. V8 represents a long substring as
 * a view into its parent, so a key cut from a 1 MB chunk would pin the whole chunk.
 */
function detach(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/** Compares interned strings by value; -1 (missing) sorts first. */
export function compareIds(table: Interner, a: number, b: number): number {
  if (a === b) return 0;
  if (a < 0) return -1;
  if (b < 0) return 1;
  const x = table.value(a);
  const y = table.value(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
