/** Growable typed-array helpers: columns, not an object per event. */

type TypedArray = Int32Array | Float64Array | Uint8Array;

/** A copy of `arr` with room for `capacity` elements (`fill` for the new tail). */
export function resized<T extends TypedArray>(arr: T, capacity: number, fill = 0): T {
  const next = new (arr.constructor as new (n: number) => T)(capacity);
  next.set(arr.subarray(0, Math.min(arr.length, capacity)) as never);
  if (fill !== 0 && capacity > arr.length) next.fill(fill as never, arr.length);
  return next;
}

/** Doubles small columns, then grows by half so a large copy does not triple the footprint. */
export function nextCapacity(current: number, needed: number): number {
  let cap = Math.max(current, 1024);
  while (cap < needed) cap = cap < 1 << 22 ? cap * 2 : Math.ceil(cap * 1.5);
  return cap;
}

/** An append-only list of doubles. */
export class F64List {
  data: Float64Array;
  length = 0;
  constructor(capacity = 1024) {
    this.data = new Float64Array(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) this.data = resized(this.data, nextCapacity(this.length, this.length + 1));
    this.data[this.length++] = v;
  }
}

/** An append-only list of 32-bit integers. */
export class I32List {
  data: Int32Array;
  length = 0;
  constructor(capacity = 1024) {
    this.data = new Int32Array(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) this.data = resized(this.data, nextCapacity(this.length, this.length + 1));
    this.data[this.length++] = v;
  }
}

/**
 * Maps pairs of non-negative 32-bit integers to dense ids 0..size-1 (open addressing, linear
 * probing). The pairs themselves are kept as columns `a` and `b`, indexed by id.
 */
export class PairIndex {
  a: Int32Array;
  b: Int32Array;
  size = 0;
  private slots: Int32Array; // id + 1, 0 = empty
  private mask: number;

  constructor(capacity = 1024) {
    this.a = new Int32Array(capacity);
    this.b = new Int32Array(capacity);
    this.slots = new Int32Array(capacity * 2);
    this.mask = capacity * 2 - 1;
  }

  /** The id of (a, b), or -1. */
  get(a: number, b: number): number {
    const slots = this.slots;
    const mask = this.mask;
    let i = hash(a, b) & mask;
    for (;;) {
      const s = slots[i];
      if (s === 0) return -1;
      const id = s - 1;
      if (this.a[id] === a && this.b[id] === b) return id;
      i = (i + 1) & mask;
    }
  }

  /** The id of (a, b), adding the pair if it is new. */
  intern(a: number, b: number): number {
    const slots = this.slots;
    const mask = this.mask;
    let i = hash(a, b) & mask;
    for (;;) {
      const s = slots[i];
      if (s === 0) break;
      const id = s - 1;
      if (this.a[id] === a && this.b[id] === b) return id;
      i = (i + 1) & mask;
    }
    const id = this.size++;
    if (id === this.a.length) {
      this.grow();
      return this.place(id, a, b);
    }
    this.a[id] = a;
    this.b[id] = b;
    slots[i] = id + 1;
    return id;
  }

  /** Called after an id was added; lets owners grow their own per-id columns in step. */
  get capacity(): number {
    return this.a.length;
  }

  private place(id: number, a: number, b: number): number {
    this.a[id] = a;
    this.b[id] = b;
    let i = hash(a, b) & this.mask;
    while (this.slots[i] !== 0) i = (i + 1) & this.mask;
    this.slots[i] = id + 1;
    return id;
  }

  private grow(): void {
    const cap = nextCapacity(this.a.length, this.a.length + 1);
    this.a = resized(this.a, cap);
    this.b = resized(this.b, cap);
    // Keep the load factor at or below one half.
    let slotCount = 1;
    while (slotCount < cap * 2) slotCount *= 2;
    this.slots = new Int32Array(slotCount);
    this.mask = slotCount - 1;
    for (let id = 0; id < this.size - 1; id++) {
      let i = hash(this.a[id], this.b[id]) & this.mask;
      while (this.slots[i] !== 0) i = (i + 1) & this.mask;
      this.slots[i] = id + 1;
    }
  }
}

function hash(a: number, b: number): number {
  let h = Math.imul(a ^ 0x5bd1e995, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca77);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 13;
  return h;
}
