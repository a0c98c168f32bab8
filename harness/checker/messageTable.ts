/**
 * Builds the stream and message tables in bulk from the reference log (refLog.ts), once all
 * events are in: bucket by bucket (2^BUCKET_SHIFT keys each), a counting sort of the
 * references by key in a small buffer (sequential reads, scattered writes that stay in cache),
 * a sort of each key's references by (producer, seq) (usually a check that they already are),
 * then one sequential walk that assigns stream and message ids and fills the per-message
 * columns. No copy of the whole log is made: each sorted bucket goes back where it came from.
 *
 * Ids come out in (key id, producer id, seq) order, so each stream's messages are contiguous
 * and in seq order (`MessageTable.streamStart`), and so are each key's streams and messages.
 * Process events are numbered anew in the same order (a message's events keep their arrival
 * order; the store numbers phantoms after them), so each message's and each key's events are
 * contiguous. Ids depend on arrival order (interned ids do), which nothing in a result may
 * depend on. References of one message keep their arrival order, so "first" folds (firstSend,
 * firstAck) see them as the incremental table did.
 */
import { ACK_LANE_SHIFT, BUCKET_SHIFT, type Bucket, TAG_ACK, TAG_BITS, TAG_PROCESS, TAG_SEND, type RefLog } from './refLog.ts';

/** Streams (producer, key): `a` = producer id, `b` = key id, by stream id. */
export class StreamTable {
  constructor(
    readonly a = new Int32Array(0),
    readonly b = new Int32Array(0),
    readonly size = 0,
  ) {}
}

/** Messages (stream, seq): `a` = stream id, `b` = seq, by message id. */
export class MessageTable {
  constructor(
    readonly a = new Int32Array(0),
    readonly b = new Int32Array(0),
    readonly size = 0,
    /** The messages of stream s are ids streamStart[s] .. streamStart[s + 1], in seq order. */
    readonly streamStart = new Int32Array(1),
  ) {}

  /** The id of message (stream, seq), or -1. */
  get(stream: number, seq: number): number {
    if (!(stream >= 0 && stream + 1 < this.streamStart.length)) return -1;
    let lo = this.streamStart[stream];
    let hi = this.streamStart[stream + 1];
    const b = this.b;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (b[mid] < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.streamStart[stream + 1] && b[lo] === seq ? lo : -1;
  }
}

export interface BuiltMessages {
  streams: StreamTable;
  messages: MessageTable;
  sendCount: Int32Array;
  ackCount: Int32Array;
  ackFlags: Uint8Array;
  /**
   * The lane the message's acks named: lane id + 1 when every ack named that same lane; -1
   * when one named none or two named different lanes; 0 when it has no ack.
   */
  ackLane: Int32Array;
  firstSend: Float64Array;
  firstAck: Float64Array;
  /** The process events of message m are ids evByMsgStart[m] .. evByMsgStart[m + 1]. */
  evByMsgStart: Int32Array;
  /** Per new event id: its message id (ids from `numbered` on are the caller's: phantoms). */
  evMsg: Int32Array;
  /** Per process event in arrival order: its new id (the log's events only). */
  evId: Int32Array;
  /** How many events the log held: ids 0 .. numbered. */
  numbered: number;
}

/**
 * Builds the tables from `log` (keys ids below `keyCount`) and numbers the process events in
 * it anew, in message order; `events` process events arrived in all (the others are
 * phantoms, for the caller to number). The log is cleared.
 *
 * One bucket of keys at a time (refLog.ts): its references are grouped by key into a buffer
 * (a stable counting sort), each key's range sorted by (producer, seq), counted, and written
 * back into the bucket; once the tables are sized, each bucket is walked where it lies.
 */
export function buildMessages(log: RefLog, keyCount: number, events: number): BuiltMessages {
  log.drain();
  const buckets = log.buckets;
  const bucketKeys = 1 << BUCKET_SHIFT;
  let longest = 0;
  for (const b of buckets) if (b.length > longest) longest = b.length;
  const prod = new Int32Array(longest);
  const seq = new Int32Array(longest);
  const at = new Float64Array(longest);
  const tag = new Int32Array(longest);
  const local = new Int32Array(bucketKeys + 1);
  const fill = new Int32Array(bucketKeys);
  /** keyStart[k]: where key k's references start, counting over all buckets. */
  const keyStart = new Int32Array(keyCount + 1);

  // Group, sort and count.
  const sorter = new RangeSorter(prod, seq, at, tag);
  const counts = new Int32Array(3);
  let streamCount = 0;
  let messageCount = 0;
  let processCount = 0;
  let base = 0;
  for (let b = 0; b << BUCKET_SHIFT < keyCount; b++) {
    const k0 = b << BUCKET_SHIFT;
    const nk = Math.min(keyCount - k0, bucketKeys);
    const bucket = b < buckets.length ? buckets[b] : null;
    if (bucket === null || bucket.length === 0) {
      for (let k = 0; k < nk; k++) keyStart[k0 + k] = base;
      continue;
    }
    groupBucket(log, bucket, k0, nk, local, fill, prod, seq, at, tag);
    for (let k = 0; k < nk; k++) {
      keyStart[k0 + k] = base + local[k];
      const lo = local[k];
      const hi = local[k + 1];
      if (lo === hi) continue;
      // Counted as it is checked to be in (producer, seq) order, as it usually is; else
      // sorted and counted again.
      let counted = countSorted(prod, seq, tag, lo, hi, counts);
      if (!counted) {
        sorter.sort(lo, hi);
        counted = countSorted(prod, seq, tag, lo, hi, counts);
      }
      streamCount += counts[0];
      messageCount += counts[1];
      processCount += counts[2];
    }
    log.storeBucket(bucket, prod, seq, at, tag);
    base += bucket.length;
  }
  keyStart[keyCount] = base;
  log.dropKeys(); // grouped: a GC the tables below bring on may free them

  const sA = new Int32Array(streamCount);
  const sB = new Int32Array(streamCount);
  const streamStart = new Int32Array(streamCount + 1);
  const mA = new Int32Array(messageCount);
  const mB = new Int32Array(messageCount);
  const sendCount = new Int32Array(messageCount);
  const ackCount = new Int32Array(messageCount);
  const ackFlags = new Uint8Array(messageCount);
  const ackLane = new Int32Array(messageCount);
  const firstSend = new Float64Array(messageCount).fill(NaN);
  const firstAck = new Float64Array(messageCount).fill(NaN);
  const evByMsgStart = new Int32Array(messageCount + 1);
  const evMsg = new Int32Array(events);
  const evId = new Int32Array(events);
  const numbered = fillTables(log, keyStart, { sA, sB, streamStart, mA, mB, sendCount, ackCount, ackFlags, ackLane, firstSend, firstAck, evByMsgStart, evMsg, evId });
  log.clear();
  if (numbered !== processCount) throw new Error(`message table: ${numbered} process events numbered, ${processCount} counted`);
  streamStart[streamCount] = messageCount;
  return {
    streams: new StreamTable(sA, sB, streamCount),
    messages: new MessageTable(mA, mB, messageCount, streamStart),
    sendCount,
    ackCount,
    ackFlags,
    ackLane,
    firstSend,
    firstAck,
    evByMsgStart,
    evMsg,
    evId,
    numbered,
  };
}

/** The tables fillTables writes: the per-message and event columns, and the stream and message ids. */
type Tables = Omit<BuiltMessages, 'streams' | 'messages' | 'numbered'> & {
  sA: Int32Array;
  sB: Int32Array;
  streamStart: Int32Array;
  mA: Int32Array;
  mB: Int32Array;
};

/**
 * Assigns stream, message and event ids in one walk over the sorted buckets and fills the
 * tables (sized by the counting pass). Returns the number of process events numbered.
 */
function fillTables(log: RefLog, keyStart: Int32Array, tables: Tables): number {
  const { sA, sB, streamStart, mA, mB, sendCount, ackCount, ackFlags, ackLane, firstSend, firstAck, evByMsgStart, evMsg, evId } = tables;
  const buckets = log.buckets;
  let e = 0;
  let st = -1;
  let m = -1;
  // The sorted buckets, read where they were written back: entry i of a bucket is the i-th
  // of its segments, and key k's entries are keyStart[k] .. keyStart[k + 1] (minus the
  // bucket's first).
  for (let b = 0; b < buckets.length; b++) {
    const bucket = buckets[b];
    if (bucket.length === 0) continue;
    const k0 = b << BUCKET_SHIFT;
    const off = keyStart[k0];
    let k = k0 - 1;
    let keyEnd = 0; // where key k's entries end, in the bucket
    let i = 0;
    let prevP = 0;
    let prevQ = 0;
    const segs = bucket.segs;
    for (let g = 0; g < bucket.segCount * 3; g += 3) {
      const d = segs[g];
      const ps = log.producers[d];
      const ss = log.seqs[d];
      const as = log.ats[d];
      const ts = log.tags[d];
      for (let j = segs[g + 1], hi = segs[g + 2]; j < hi; j++, i++) {
        const p = ps[j];
        const q = ss[j];
        let newStream = p !== prevP;
        if (i === keyEnd) {
          do keyEnd = keyStart[++k + 1] - off;
          while (keyEnd === i);
          newStream = true;
        }
        if (newStream) {
          st++;
          sA[st] = p;
          sB[st] = k;
          streamStart[st] = m + 1;
          m++;
          mA[m] = st;
          mB[m] = q;
          evByMsgStart[m] = e;
        } else if (q !== prevQ) {
          m++;
          mA[m] = st;
          mB[m] = q;
          evByMsgStart[m] = e;
        }
        prevP = p;
        prevQ = q;
        const t = ts[j];
        const x = as[j];
        if (t === TAG_PROCESS) {
          evId[x] = e;
          evMsg[e++] = m;
        } else if (t === TAG_SEND) {
          sendCount[m]++;
          if (!(firstSend[m] <= x)) firstSend[m] = x;
        } else {
          ackCount[m]++;
          ackFlags[m] |= t & TAG_BITS & ~TAG_ACK;
          const lane = t >>> ACK_LANE_SHIFT;
          const seen = ackLane[m];
          ackLane[m] = seen === 0 ? (lane === 0 ? -1 : lane) : seen === lane ? seen : -1;
          if (!(firstAck[m] <= x)) firstAck[m] = x;
        }
      }
    }
  }
  evByMsgStart[evByMsgStart.length - 1] = e;
  return e;
}

/**
 * A stable counting sort of a bucket's references (keys k0 .. k0 + nk) by key into prod, seq,
 * at, tag: key k0 + k's are local[k] .. local[k + 1], in arrival order.
 */
function groupBucket(
  log: RefLog,
  bucket: Bucket,
  k0: number,
  nk: number,
  local: Int32Array,
  fill: Int32Array,
  prod: Int32Array,
  seq: Int32Array,
  at: Float64Array,
  tag: Int32Array,
): void {
  const segs = bucket.segs;
  const end = bucket.segCount * 3;
  local.fill(0, 0, nk + 1);
  for (let g = 0; g < end; g += 3) {
    const keys = log.keys[segs[g]];
    for (let i = segs[g + 1], hi = segs[g + 2]; i < hi; i++) local[keys[i] - k0 + 1]++;
  }
  for (let k = 0; k < nk; k++) {
    local[k + 1] += local[k];
    fill[k] = local[k];
  }
  for (let g = 0; g < end; g += 3) {
    const d = segs[g];
    const ks = log.keys[d];
    const ps = log.producers[d];
    const ss = log.seqs[d];
    const as = log.ats[d];
    const ts = log.tags[d];
    for (let i = segs[g + 1], hi = segs[g + 2]; i < hi; i++) {
      const j = fill[ks[i] - k0]++;
      prod[j] = ps[i];
      seq[j] = ss[i];
      at[j] = as[i];
      tag[j] = ts[i];
    }
  }
}

/**
 * Counts the streams, messages and process references of a key's range into counts[0..2]
 * when the range is in (producer, seq) order; returns false (counts undefined) when it is not.
 */
function countSorted(prod: Int32Array, seq: Int32Array, tag: Int32Array, lo: number, hi: number, counts: Int32Array): boolean {
  let streams = 1;
  let messages = 1;
  let process = tag[lo] === TAG_PROCESS ? 1 : 0;
  for (let i = lo + 1; i < hi; i++) {
    if (tag[i] === TAG_PROCESS) process++;
    const dp = prod[i] - prod[i - 1];
    if (dp !== 0) {
      if (dp < 0) return false;
      streams++;
      messages++;
    } else {
      const dq = seq[i] - seq[i - 1];
      if (dq < 0) return false;
      if (dq !== 0) messages++;
    }
  }
  counts[0] = streams;
  counts[1] = messages;
  counts[2] = process;
  return true;
}

const SHORT = 32;
const PACK_LIMIT = 1 << 22; // seq (< 2^31) * 2^22 + index stays below 2^53

/** Stable sorts of ranges of the four parallel columns by (producer, seq). */
class RangeSorter {
  private perm = new Int32Array(0);
  private packed = new Float64Array(0);
  private tmpI = new Int32Array(0);
  private tmpF = new Float64Array(0);


  constructor(
    private readonly prod: Int32Array,
    private readonly seq: Int32Array,
    private readonly at: Float64Array,
    private readonly tag: Int32Array,
  ) {}

  sort(lo: number, hi: number): void {
    const n = hi - lo;
    if (n <= SHORT) return this.insertion(lo, hi);
    if (this.perm.length < n) this.perm = new Int32Array(Math.max(n, this.perm.length * 2));
    const perm = this.perm.subarray(0, n);
    const { prod, seq } = this;
    let oneProducer = true;
    for (let i = lo + 1; i < hi && oneProducer; i++) oneProducer = prod[i] === prod[lo];
    if (oneProducer && n < PACK_LIMIT) {
      // A native numeric sort of seq * 2^22 + position: stable, no comparator calls.
      if (this.packed.length < n) this.packed = new Float64Array(Math.max(n, this.packed.length * 2));
      const packed = this.packed.subarray(0, n);
      for (let i = 0; i < n; i++) packed[i] = seq[lo + i] * PACK_LIMIT + i;
      packed.sort();
      for (let i = 0; i < n; i++) perm[i] = packed[i] % PACK_LIMIT;
    } else {
      for (let i = 0; i < n; i++) perm[i] = i;
      perm.sort((x, y) => prod[lo + x] - prod[lo + y] || seq[lo + x] - seq[lo + y] || x - y);
    }
    this.permute(lo, n, perm);
  }

  /** Rearranges the columns in [lo, lo + n) so that position i takes old position perm[i]. */
  private permute(lo: number, n: number, perm: Int32Array): void {
    if (this.tmpI.length < n) {
      this.tmpI = new Int32Array(Math.max(n, this.tmpI.length * 2));
      this.tmpF = new Float64Array(this.tmpI.length);
    }
    const { tmpI, tmpF } = this;
    for (const col of [this.prod, this.seq, this.tag]) {
      for (let i = 0; i < n; i++) tmpI[i] = col[lo + perm[i]];
      col.set(tmpI.subarray(0, n), lo);
    }
    for (let i = 0; i < n; i++) tmpF[i] = this.at[lo + perm[i]];
    this.at.set(tmpF.subarray(0, n), lo);
  }

  private insertion(lo: number, hi: number): void {
    const { prod, seq, at, tag } = this;
    for (let i = lo + 1; i < hi; i++) {
      const p = prod[i];
      const q = seq[i];
      const x = at[i];
      const t = tag[i];
      let j = i - 1;
      while (j >= lo && (prod[j] > p || (prod[j] === p && seq[j] > q))) {
        prod[j + 1] = prod[j];
        seq[j + 1] = seq[j];
        at[j + 1] = at[j];
        tag[j + 1] = tag[j];
        j--;
      }
      prod[j + 1] = p;
      seq[j + 1] = q;
      at[j + 1] = x;
      tag[j + 1] = t;
    }
  }
}
