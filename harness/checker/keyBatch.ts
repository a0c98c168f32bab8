/**
 * Interns keys given as strings in batches (Interner.idMany) instead of one by one: with a
 * million keys each lookup misses the cache, and in a batch the misses overlap. A key's id is
 * written where it belongs when the batch is full or flushed; until then that place holds -1.
 */
import { BATCH, type Interner } from './interner.ts';

export class KeyBatch {
  private readonly strings: string[] = new Array<string>(BATCH).fill('');
  private readonly targets: Int32Array[] = new Array<Int32Array>(BATCH).fill(new Int32Array(0));
  private readonly positions = new Int32Array(BATCH);
  private count = 0;

  constructor(private readonly table: Interner) {}

  /** Interns `s` into target[position], now or at the next flush. */
  add(s: string, target: Int32Array, position: number): void {
    const i = this.count;
    this.strings[i] = s;
    this.targets[i] = target;
    this.positions[i] = position;
    if ((this.count = i + 1) === BATCH) this.flush();
  }

  flush(): void {
    this.table.idMany(this.strings, this.count, this.targets, this.positions);
    this.count = 0;
  }
}
