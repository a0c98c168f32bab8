/**
 * The ingest side of the deferred message table: every send, ack and identified process event
 * is appended here as (producer, key, seq, at, tag), in arrival order, and nothing is looked
 * up. The message table is built from the log in bulk when the checker finishes
 * (messageTable.ts): appending is sequential, where a lookup per event waited on a cache miss.
 *
 * Storage is a list of chunks, so growing never copies what is already stored.
 */

/** Tags: a process event (then `at` holds its event id), a send, or an ack (| ACK_* flags). */
export const TAG_PROCESS = 0;
export const TAG_SEND = 1;
export const TAG_ACK = 4;

const FIRST_CHUNK = 1 << 10;
const MAX_CHUNK = 1 << 16;

export class RefLog {
  length = 0;
  readonly producers: Int32Array[] = [];
  readonly keys: Int32Array[] = [];
  readonly seqs: Int32Array[] = [];
  readonly ats: Float64Array[] = [];
  readonly tags: Uint8Array[] = [];
  // The chunk being filled.
  private p = new Int32Array(0);
  private k = new Int32Array(0);
  private s = new Int32Array(0);
  private a = new Float64Array(0);
  private t = new Uint8Array(0);
  private pos = 0;

  push(producer: number, key: number, seq: number, at: number, tag: number): void {
    let i = this.pos;
    if (i === this.p.length) {
      this.addChunk();
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

  /** Entries in chunk `c` (all chunks but the last are full). */
  chunkLength(c: number): number {
    return c === this.keys.length - 1 ? this.pos : this.keys[c].length;
  }

  /** Drops the entries (once the message table is built from them). */
  clear(): void {
    for (const list of [this.producers, this.keys, this.seqs, this.ats, this.tags]) list.length = 0;
    this.p = this.k = this.s = new Int32Array(0);
    this.a = new Float64Array(0);
    this.t = new Uint8Array(0);
    this.pos = 0;
    this.length = 0;
  }

  private addChunk(): void {
    const n = Math.min(MAX_CHUNK, Math.max(FIRST_CHUNK, this.length));
    this.producers.push((this.p = new Int32Array(n)));
    this.keys.push((this.k = new Int32Array(n)));
    this.seqs.push((this.s = new Int32Array(n)));
    this.ats.push((this.a = new Float64Array(n)));
    this.tags.push((this.t = new Uint8Array(n)));
    this.pos = 0;
  }
}
