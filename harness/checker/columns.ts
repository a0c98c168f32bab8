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
 * probing). The pairs themselves are also kept as columns `a` and `b`, indexed by id.
 * Each slot holds (a, b, id + 1) side by side, so a lookup touches one cache line, not three:
 * with millions of messages, memory latency is what the ingest loop waits on.
 */
export class PairIndex {
  a: Int32Array;
  b: Int32Array;
  size = 0;
  private slots: Int32Array; // [a, b, id + 1] per slot; id + 1 = 0: empty
  private mask: number;

  constructor(capacity = 1024) {
    this.a = new Int32Array(capacity);
    this.b = new Int32Array(capacity);
    const slotCount = slotsFor(capacity);
    this.slots = new Int32Array(slotCount * 3);
    this.mask = slotCount - 1;
  }

  /** The id of (a, b), or -1. */
  get(a: number, b: number): number {
    const slots = this.slots;
    const mask = this.mask;
    let i = hash(a, b) & mask;
    for (;;) {
      const j = i * 3;
      const s = slots[j + 2];
      if (s === 0) return -1;
      if (slots[j] === a && slots[j + 1] === b) return s - 1;
      i = (i + 1) & mask;
    }
  }

  /** The id of (a, b), adding the pair if it is new. */
  intern(a: number, b: number): number {
    const slots = this.slots;
    const mask = this.mask;
    let i = hash(a, b) & mask;
    for (;;) {
      const j = i * 3;
      const s = slots[j + 2];
      if (s === 0) break;
      if (slots[j] === a && slots[j + 1] === b) return s - 1;
      i = (i + 1) & mask;
    }
    const id = this.size++;
    if (id === this.a.length) {
      this.grow();
      this.place(id, a, b);
      return id;
    }
    this.a[id] = a;
    this.b[id] = b;
    const j = i * 3;
    slots[j] = a;
    slots[j + 1] = b;
    slots[j + 2] = id + 1;
    return id;
  }

  /** Ids below this have room in `a`, `b` (owners grow their own per-id columns in step). */
  get capacity(): number {
    return this.a.length;
  }

  private place(id: number, a: number, b: number): void {
    this.a[id] = a;
    this.b[id] = b;
    const slots = this.slots;
    let i = hash(a, b) & this.mask;
    while (slots[i * 3 + 2] !== 0) i = (i + 1) & this.mask;
    slots[i * 3] = a;
    slots[i * 3 + 1] = b;
    slots[i * 3 + 2] = id + 1;
  }

  private grow(): void {
    const cap = nextCapacity(this.a.length, this.a.length + 1);
    this.a = resized(this.a, cap);
    this.b = resized(this.b, cap);
    const slotCount = slotsFor(cap);
    this.slots = new Int32Array(slotCount * 3);
    this.mask = slotCount - 1;
    for (let id = 0; id < this.size - 1; id++) this.place(id, this.a[id], this.b[id]);
  }
}

/** A power of two at least twice the capacity: the load factor stays at or below one half. */
function slotsFor(capacity: number): number {
  let n = 1;
  while (n < capacity * 2) n *= 2;
  return n;
}

function hash(a: number, b: number): number {
  let h = Math.imul(a ^ 0x5bd1e995, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca77);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 13;
  return h;
}

/**
 * Maps (producer id, key id) to dense stream ids. A key has few producers, so each key keeps
 * its first stream and that stream's producer side by side (one cache line to check the
 * usual case), and a short chain of any further streams. Same columns as PairIndex:
 * `a` = producer, `b` = key.
 */
export class StreamIndex {
  a = new Int32Array(1024);
  b = new Int32Array(1024);
  size = 0;
  private next = new Int32Array(1024); // next stream of the same key, -1 = none
  private head = new Int32Array(2048); // per key: [first stream + 1 (0 = none), its producer]

  intern(producer: number, key: number): number {
    let head = this.head;
    if (key * 2 >= head.length) head = this.head = resized(head, nextCapacity(head.length, key * 2 + 2));
    const first = head[key * 2] - 1;
    if (first >= 0 && head[key * 2 + 1] === producer) return first;
    let s = first;
    while (s >= 0) {
      if (this.a[s] === producer) return s;
      s = this.next[s];
    }
    const id = this.size++;
    if (id === this.a.length) {
      const cap = nextCapacity(id, id + 1);
      this.a = resized(this.a, cap);
      this.b = resized(this.b, cap);
      this.next = resized(this.next, cap);
    }
    this.a[id] = producer;
    this.b[id] = key;
    // The new stream goes after the first (which stays in `head`).
    if (first < 0) {
      this.next[id] = -1;
      head[key * 2] = id + 1;
      head[key * 2 + 1] = producer;
    } else {
      this.next[id] = this.next[first];
      this.next[first] = id;
    }
    return id;
  }
}
