/**
 * The ingest side of the deferred message table: every send, ack and identified process event
 * is appended here as (producer, key, seq, at, tag), and nothing is looked up. The message
 * table is built from the log in bulk when the checker finishes (messageTable.ts).
 *
 * Entries are staged in arrival order; each full staging buffer is grouped by bucket
 * (2^BUCKET_SHIFT consecutive key ids) into a new block, and each bucket notes its segment of
 * the block. A bucket's segments, in order, are its entries in arrival order. The build then
 * sorts one bucket at a time in a small buffer and writes it back into the bucket's own
 * segments, so it never needs a second copy of the whole log. Stored entries are never copied
 * to grow.
 */

/**
 * Tags: a process event (then `at` holds its event id), a send, or an ack (| ACK_* flags, and
 * the lane the ack named, as lane id + 1, shifted up by ACK_LANE_SHIFT; 0 when it named none).
 */
export const TAG_PROCESS = 0;
export const TAG_SEND = 1;
export const TAG_ACK = 4;
/** The low bits of a tag: the kind and the ACK_* flags. */
export const TAG_BITS = 7;
export const ACK_LANE_SHIFT = 3;

/** Keys b << BUCKET_SHIFT .. (b + 1) << BUCKET_SHIFT share bucket b. */
export const BUCKET_SHIFT = 10;
const STAGE = 1 << 15;
const FIRST_CHUNK = 256;

/**
 * Block memory, carved from slabs of up to 32 MiB: glibc maps blocks that large on their own and
 * unmaps them when freed, where thousands of small blocks would stay in its heap (and in the
 * RSS) after the log is dropped. Untouched pages of a slab take no memory.
 */
const SLAB_BYTES = 1 << 25;

export class Slabs {
  private slab = new ArrayBuffer(0);
  private used = 0;

  /** `bytes` (a multiple of 8) of zeroed memory: [buffer, offset]. */
  take(bytes: number): [ArrayBuffer, number] {
    if (this.used + bytes > this.slab.byteLength) {
      // Small logs take small slabs: twice the last, from 64 KiB up to SLAB_BYTES.
      const size = Math.min(SLAB_BYTES, Math.max(1 << 16, this.slab.byteLength * 2));
      this.slab = new ArrayBuffer(Math.max(size, bytes));
      this.used = 0;
    }
    const at = this.used;
    this.used += bytes;
    return [this.slab, at];
  }
}

/** A bucket's entries: segments lo .. hi of drained blocks, in arrival order. */
export class Bucket {
  length = 0;
  /** Segment i is entries segs[3i + 1] .. segs[3i + 2] of block segs[3i]. */
  segs = new Int32Array(12);
  segCount = 0;

  add(block: number, lo: number, hi: number): void {
    let i = this.segCount * 3;
    if (i === this.segs.length) {
      const next = new Int32Array(i * 2);
      next.set(this.segs);
      this.segs = next;
    }
    this.segs[i++] = block;
    this.segs[i++] = lo;
    this.segs[i] = hi;
    this.segCount++;
    this.length += hi - lo;
  }
}

export class RefLog {
  length = 0;
  /** Bucket b holds keys b << BUCKET_SHIFT ..; a bucket no entry reached may be missing. */
  buckets: Bucket[] = [];
  /** Drained blocks: the staged entries of one drain, grouped by bucket (see Bucket). */
  producers: Int32Array[] = [];
  keys: Int32Array[] = [];
  seqs: Int32Array[] = [];
  ats: Float64Array[] = [];
  tags: Int32Array[] = [];
  // The staging buffer, in arrival order, and a second one that groups it by bucket.
  // (Small at first, doubled at each drain up to STAGE entries.)
  private p = new Int32Array(FIRST_CHUNK);
  private k = new Int32Array(FIRST_CHUNK);
  private s = new Int32Array(FIRST_CHUNK);
  private a = new Float64Array(FIRST_CHUNK);
  private t = new Int32Array(FIRST_CHUNK);
  private bucketCount = new Int32Array(64);
  private readonly slabs = new Slabs();
  /** The keys' own slabs, so that they can go once the build has grouped by key. */
  private keySlabs = new Slabs();
  private pos = 0;

  /** `resolve` writes every key still pending (-1) into the staging buffer (see KeyBatch). */
  constructor(private readonly resolve: () => void = () => {}) {}

  push(producer: number, key: number, seq: number, at: number, tag: number): void {
    let i = this.pos;
    if (i === this.p.length) {
      this.drain();
      if (i < STAGE) this.growStage(i * 2);
      i = 0;
    }
    this.p[i] = producer;
    this.k[i] = key;
    this.s[i] = seq;
    this.a[i] = at;
    this.t[i] = tag;
    this.pos = i + 1;
    this.length++;
  }

  /** Where the key of the last entry is: keyChunk[lastPosition] (see KeyBatch). */
  get keyChunk(): Int32Array {
    return this.k;
  }
  get lastPosition(): number {
    return this.pos - 1;
  }

  /** Moves the staged entries into their buckets (keys must be resolved: see `resolve`). */
  drain(): void {
    this.resolve();
    const n = this.pos;
    this.pos = 0;
    if (n === 0) return;
    const { k } = this;
    let top = 0;
    for (let i = 0; i < n; i++) if (k[i] > top) top = k[i];
    const nb = (top >>> BUCKET_SHIFT) + 1;
    while (this.buckets.length < nb) this.buckets.push(new Bucket());
    if (this.bucketCount.length < nb + 1) this.bucketCount = new Int32Array(Math.max(nb + 1, this.bucketCount.length * 2));
    const count = this.bucketCount;
    count.fill(0, 0, nb + 1);
    for (let i = 0; i < n; i++) count[(k[i] >>> BUCKET_SHIFT) + 1]++;
    for (let b = 0; b < nb; b++) count[b + 1] += count[b];
    const { p, s, a, t } = this;
    const nb8 = (n + 7) & ~7; // 8-byte aligned columns
    const [buf, at] = this.slabs.take(20 * nb8);
    const [kBuf, kAt] = this.keySlabs.take(4 * nb8);
    const block = this.keys.length;
    const a2 = new Float64Array(buf, at, n);
    const p2 = new Int32Array(buf, at + 8 * nb8, n);
    const s2 = new Int32Array(buf, at + 12 * nb8, n);
    const t2 = new Int32Array(buf, at + 16 * nb8, n);
    const k2 = new Int32Array(kBuf, kAt, n);
    this.ats.push(a2);
    this.producers.push(p2);
    this.keys.push(k2);
    this.seqs.push(s2);
    this.tags.push(t2);
    for (let i = 0; i < n; i++) {
      const key = k[i];
      const j = count[key >>> BUCKET_SHIFT]++;
      p2[j] = p[i];
      k2[j] = key;
      s2[j] = s[i];
      a2[j] = a[i];
      t2[j] = t[i];
    }
    // count[b] is now the end of bucket b's run.
    let lo = 0;
    for (let b = 0; b < nb; b++) {
      const hi = count[b];
      if (hi > lo) this.buckets[b].add(block, lo, hi);
      lo = hi;
    }
  }

  private growStage(n: number): void {
    this.p = new Int32Array(n);
    this.k = new Int32Array(n);
    this.s = new Int32Array(n);
    this.a = new Float64Array(n);
    this.t = new Int32Array(n);
  }

  /** Overwrites bucket `b`'s entries, in order, with p, s, a, t [0, b.length) (keys stay). */
  storeBucket(b: Bucket, p: Int32Array, s: Int32Array, a: Float64Array, t: Int32Array): void {
    const segs = b.segs;
    let i = 0;
    for (let g = 0; g < b.segCount * 3; g += 3) {
      const d = segs[g];
      const cp = this.producers[d];
      const cs = this.seqs[d];
      const ca = this.ats[d];
      const ct = this.tags[d];
      for (let j = segs[g + 1], hi = segs[g + 2]; j < hi; j++, i++) {
        cp[j] = p[i];
        cs[j] = s[i];
        ca[j] = a[i];
        ct[j] = t[i];
      }
    }
  }

  /** Drops the keys of the drained blocks (once the build has grouped the entries by key). */
  dropKeys(): void {
    this.keys = [];
    this.keySlabs = new Slabs();
  }

  /** Drops the entries (once the message table is built from them). */
  clear(): void {
    this.buckets = [];
    this.producers = [];
    this.keys = [];
    this.seqs = [];
    this.ats = [];
    this.tags = [];
    this.pos = 0;
    this.length = 0;
  }
}
