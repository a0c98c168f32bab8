/**
 * An open-addressing hash table from ASCII text to ids, in typed arrays. The text is given
 * either as a JS string or as bytes of a buffer, and both spellings of one text find the same
 * entry: so the byte-level line parser interns keys without making a string per line.
 *
 * Why not a Map: at a million keys a Map lookup waits on several cache misses (bucket, entry,
 * stored string); here a text of up to 20 characters sits in its slot, so a lookup touches one
 * cache line. Longer texts are compared against a byte pool.
 */

/** Int32s per slot: hash, id + 1 (0: empty), length, then 5 words of text (4 bytes each), or the pool offset for longer texts. */
const STRIDE = 8;
const INLINE = 20;

export const NOT_ASCII = -2;

export class AsciiTable {
  private slots = new Int32Array(64 * STRIDE);
  private mask = 63;
  private count = 0;
  private pool = new Uint8Array(1024);
  private poolUsed = 0;
  /** The text being looked up, packed: words, hash, and the slot where it would go. */
  private readonly words = new Int32Array(5);
  private hash = 0;
  private slot = 0;

  /** The id of string `s`, -1 when absent (then `addString` may add it), NOT_ASCII when `s` is not ASCII. */
  getString(s: string): number {
    const n = s.length;
    const w = this.words;
    let h = 0x2f0b3c1d;
    let word = 0;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 127) return NOT_ASCII;
      word |= c << ((i & 3) << 3);
      if ((i & 3) === 3) {
        if (i < INLINE) w[i >> 2] = word;
        h = mix(h, word);
        word = 0;
      }
    }
    if ((n & 3) !== 0) {
      if (n <= INLINE) w[n >> 2] = word;
      h = mix(h, word);
    }
    return this.probe(fmix(h ^ n), n, s, null, 0);
  }

  /**
   * The hash a lookup of `s` starts from (any value for non-ASCII text: see slotWord).
   * Together with slotWord, lets a caller load the starting slots of many strings in one
   * tight loop, so that their cache misses overlap; the lookups that follow then hit.
   */
  hashString(s: string): number {
    const n = s.length;
    let h = 0x2f0b3c1d;
    let word = 0;
    for (let i = 0; i < n; i++) {
      word |= (s.charCodeAt(i) & 127) << ((i & 3) << 3);
      if ((i & 3) === 3) {
        h = mix(h, word);
        word = 0;
      }
    }
    if ((n & 3) !== 0) h = mix(h, word);
    return fmix(h ^ n);
  }

  /** A word of the slot where a lookup of hash `h` starts (fold it into a kept value). */
  slotWord(h: number): number {
    return this.slots[(h & this.mask) * STRIDE + 1];
  }

  /** The id of the ASCII bytes buf[from, to), or -1 when absent (then `addBytes` may add them). */
  getBytes(buf: Uint8Array, from: number, to: number): number {
    const n = to - from;
    const w = this.words;
    let h = 0x2f0b3c1d;
    let word = 0;
    for (let i = 0; i < n; i++) {
      word |= buf[from + i] << ((i & 3) << 3);
      if ((i & 3) === 3) {
        if (i < INLINE) w[i >> 2] = word;
        h = mix(h, word);
        word = 0;
      }
    }
    if ((n & 3) !== 0) {
      if (n <= INLINE) w[n >> 2] = word;
      h = mix(h, word);
    }
    return this.probe(fmix(h ^ n), n, null, buf, from);
  }

  /** Adds the text of the last lookup (which must have missed) as `id`. */
  addString(s: string, id: number): void {
    this.add(s.length, s, null, 0, id);
  }

  addBytes(buf: Uint8Array, from: number, to: number, id: number): void {
    this.add(to - from, null, buf, from, id);
  }

  private probe(h: number, n: number, s: string | null, buf: Uint8Array | null, from: number): number {
    const slots = this.slots;
    const mask = this.mask;
    const w = this.words;
    let i = h & mask;
    for (;;) {
      const j = i * STRIDE;
      const idp = slots[j + 1];
      if (idp === 0) break;
      if (slots[j] === h && slots[j + 2] === n) {
        if (n <= INLINE) {
          let k = 0;
          const nw = (n + 3) >> 2;
          while (k < nw && slots[j + 3 + k] === w[k]) k++;
          if (k === nw) return idp - 1;
        } else if (this.poolEquals(slots[j + 3], n, s, buf, from)) return idp - 1;
      }
      i = (i + 1) & mask;
    }
    this.hash = h;
    this.slot = i;
    return -1;
  }

  private poolEquals(at: number, n: number, s: string | null, buf: Uint8Array | null, from: number): boolean {
    const pool = this.pool;
    if (s !== null) {
      for (let k = 0; k < n; k++) if (pool[at + k] !== s.charCodeAt(k)) return false;
    } else {
      for (let k = 0; k < n; k++) if (pool[at + k] !== (buf as Uint8Array)[from + k]) return false;
    }
    return true;
  }

  private add(n: number, s: string | null, buf: Uint8Array | null, from: number, id: number): void {
    const j = this.slot * STRIDE;
    const slots = this.slots;
    slots[j] = this.hash;
    slots[j + 1] = id + 1;
    slots[j + 2] = n;
    if (n <= INLINE) {
      const nw = (n + 3) >> 2;
      for (let k = 0; k < nw; k++) slots[j + 3 + k] = this.words[k];
    } else {
      if (this.poolUsed + n > this.pool.length) {
        const next = new Uint8Array(Math.max(this.pool.length * 2, this.poolUsed + n));
        next.set(this.pool.subarray(0, this.poolUsed));
        this.pool = next;
      }
      const at = this.poolUsed;
      if (s !== null) for (let k = 0; k < n; k++) this.pool[at + k] = s.charCodeAt(k);
      else this.pool.set((buf as Uint8Array).subarray(from, from + n), at);
      this.poolUsed += n;
      slots[j + 3] = at;
    }
    if (++this.count * 2 > this.mask + 1) this.grow();
  }

  /** Doubles the slots; the load factor stays at or below one half. */
  private grow(): void {
    const old = this.slots;
    const size = (this.mask + 1) * 2;
    const slots = new Int32Array(size * STRIDE);
    const mask = size - 1;
    for (let j = 0; j < old.length; j += STRIDE) {
      if (old[j + 1] === 0) continue;
      let i = old[j] & mask;
      while (slots[i * STRIDE + 1] !== 0) i = (i + 1) & mask;
      const d = i * STRIDE;
      for (let k = 0; k < STRIDE; k++) slots[d + k] = old[j + k];
    }
    this.slots = slots;
    this.mask = mask;
  }
}

function mix(h: number, word: number): number {
  h = Math.imul(h ^ word, 0x9e3779b1);
  return (h << 15) | (h >>> 17);
}

function fmix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
