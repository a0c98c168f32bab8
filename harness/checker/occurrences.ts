/**
 * Every anomaly occurrence with the time it is attributed to, so that expectations can be
 * scoped to a fault's window (`during: stall-c1`). Columnar: one row per occurrence.
 */
import { ANOMALY_TYPES, type AnomalyType } from './types.ts';
import { F64List, I32List, resized, nextCapacity } from './columns.ts';
import type { Interner } from './interner.ts';

export interface Occurrence {
  type: AnomalyType;
  /** null for a phantom without a key. */
  key: string | null;
  time: number;
}

export class Occurrences {
  private types = new Uint8Array(1024);
  private readonly times = new F64List();
  private readonly keyIds = new I32List();

  constructor(private readonly keyTable: Interner) {}

  get size(): number {
    return this.times.length;
  }

  add(typeIndex: number, time: number, keyId: number): void {
    const n = this.times.length;
    if (n === this.types.length) this.types = resized(this.types, nextCapacity(n, n + 1));
    this.types[n] = typeIndex;
    this.times.push(time);
    this.keyIds.push(keyId);
  }

  /** Count and distinct keys of one type's occurrences whose time passes `keep`. */
  tally(type: AnomalyType, keep: (time: number) => boolean): { count: number; keys: number } {
    const t = ANOMALY_TYPES.indexOf(type);
    let count = 0;
    const keys = new Set<number>();
    for (let i = 0; i < this.times.length; i++) {
      if (this.types[i] !== t || !keep(this.times.data[i])) continue;
      count++;
      const k = this.keyIds.data[i];
      if (k >= 0) keys.add(k);
    }
    return { count, keys: keys.size };
  }

  /** All occurrences, sorted by (type order, time, key), for tests and reports. */
  list(): Occurrence[] {
    const out: Occurrence[] = [];
    for (let i = 0; i < this.times.length; i++) {
      const k = this.keyIds.data[i];
      out.push({ type: ANOMALY_TYPES[this.types[i]], key: k >= 0 ? this.keyTable.value(k) : null, time: this.times.data[i] });
    }
    const order = (t: AnomalyType) => ANOMALY_TYPES.indexOf(t);
    out.sort(
      (a, b) =>
        order(a.type) - order(b.type) ||
        a.time - b.time ||
        (a.key === b.key ? 0 : a.key === null ? -1 : b.key === null ? 1 : a.key < b.key ? -1 : 1),
    );
    return out;
  }
}
