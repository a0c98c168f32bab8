import { AsciiTable, NOT_ASCII } from './asciiTable.ts';

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

  get size(): number {
    return this.values.length;
  }

  id(s: string): number {
    if (s === this.lastValue && this.lastId >= 0) return this.lastId;
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
    this.lastValue = s;
    this.lastId = id;
    return id;
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
