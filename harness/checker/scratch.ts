/**
 * Reusable scratch columns for the final pass: each step gathers what it walks into typed
 * arrays, and these are the same few arrays each time rather than a new set per step (a new
 * large array is memory the process holds until the next full GC, and it brings one on).
 */
export class Scratch {
  private readonly f64s: Float64Array[] = [];
  private readonly i32s: Int32Array[] = [];
  private readonly u8s: Uint8Array[] = [];

  /** `capacity`: the largest length expected (larger requests still work). */
  constructor(private readonly capacity: number) {}

  /** Scratch doubles number `slot`, `n` long (contents undefined). */
  f64(slot: number, n: number): Float64Array {
    return view(this.f64s, slot, n, this.capacity, (m) => new Float64Array(m));
  }
  i32(slot: number, n: number): Int32Array {
    return view(this.i32s, slot, n, this.capacity, (m) => new Int32Array(m));
  }
  u8(slot: number, n: number): Uint8Array {
    return view(this.u8s, slot, n, this.capacity, (m) => new Uint8Array(m));
  }
}

function view<T extends Float64Array | Int32Array | Uint8Array>(list: T[], slot: number, n: number, capacity: number, make: (m: number) => T): T {
  let a = list[slot];
  if (a === undefined || a.length < n) a = list[slot] = make(Math.max(n, capacity));
  return (a.length === n ? a : a.subarray(0, n)) as T;
}
