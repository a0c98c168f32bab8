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
