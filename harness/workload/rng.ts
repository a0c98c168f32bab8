/**
 * Seeded PRNG: xoshiro128** (Blackman & Vigna) seeded through splitmix32, with named,
 * independent streams. `fork(name)` derives a stream from the root seed and the name only,
 * never from how much of the parent was consumed, so `rng.fork('keys')` yields the same
 * sequence in every process of a run whatever else that process drew before.
 */

/** FNV-1a over the UTF-16 code units of a string, 32 bits. Stable across runs and platforms. */
export function hash32(text: string, salt = 0): number {
  let h = (0x811c9dc5 ^ salt) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** Murmur3's finaliser: a bijective avalanche of 32 bits. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0;
  let t = state.s ^ (state.s >>> 16);
  t = Math.imul(t, 0x21f0aaad);
  t ^= t >>> 15;
  t = Math.imul(t, 0x735a2d97);
  t ^= t >>> 15;
  return t >>> 0;
}

const TWO32 = 4294967296;
const TWO53 = 9007199254740992;

export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  /** `key` identifies the stream (four 32-bit words); use Rng.from(seed) or fork(). */
  private constructor(private readonly key: readonly [number, number, number, number]) {
    const st = { s: key[0] ^ fmix32(key[1] ^ 0x5bd1e995) ^ fmix32(key[2] + 0x27d4eb2f) ^ fmix32(key[3] ^ 0x165667b1) };
    this.s0 = splitmix32(st) ^ key[1];
    this.s1 = splitmix32(st) ^ key[2];
    this.s2 = splitmix32(st) ^ key[3];
    this.s3 = splitmix32(st) ^ key[0];
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1; // the all-zero state is a fixed point
    for (let i = 0; i < 8; i++) this.nextU32(); // warm up past the seeding
  }

  /** A root stream from a scenario seed: any integer (|seed| < 2^53) or a string. */
  static from(seed: number | string): Rng {
    if (typeof seed === 'string') {
      return new Rng([hash32(seed, 1), hash32(seed, 2), hash32(seed, 3), hash32(seed, 4)]);
    }
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
    const lo = seed >>> 0;
    const hi = Math.floor(seed / TWO32) >>> 0;
    return new Rng([fmix32(lo ^ 0x3c6ef372), fmix32(hi ^ 0xa54ff53a), fmix32(lo + 0x510e527f), fmix32(hi + 0x9b05688c)]);
  }

  /** An independent stream named `name`, derived from this stream's identity (not its position). */
  fork(name: string): Rng {
    const h = hash32(name);
    const k = this.key;
    return new Rng([
      fmix32(k[0] ^ h),
      fmix32(k[1] ^ Math.imul(h, 0x9e3779b1)),
      fmix32(k[2] + h + 0x7f4a7c15),
      fmix32(k[3] ^ ((h << 13) | (h >>> 19))),
    ]);
  }

  /** A copy at the same position (for replaying a stream). */
  clone(): Rng {
    const r = Object.create(Rng.prototype) as Rng;
    Object.assign(r, this);
    return r;
  }

  /** Uniform 32-bit unsigned integer. */
  nextU32(): number {
    const s1 = this.s1;
    const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return r;
  }

  /** Uniform double in [0, 1) with 53 random bits. */
  next(): number {
    const a = this.nextU32() >>> 5;
    const b = this.nextU32() >>> 6;
    return (a * 67108864 + b) / TWO53;
  }

  /** Uniform integer in [0, n), n ≤ 2^32, without modulo bias. */
  int(n: number): number {
    if (n <= 1) return 0;
    if (n > TWO32) return Math.floor(this.next() * n);
    const limit = TWO32 - (TWO32 % n);
    for (;;) {
      const x = this.nextU32();
      if (x < limit) return x % n;
    }
  }

  /** Uniform integer in [min, max] (inclusive). */
  intBetween(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** Uniform double in [min, max). */
  uniform(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Exponentially distributed with the given mean. */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return p >= 1 ? (this.next(), true) : this.next() < p;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
