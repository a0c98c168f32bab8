/**
 * Builds the stream and message tables in bulk from the reference log (refLog.ts), once all
 * events are in: a counting sort of the references by key (sequential reads, independent
 * scattered writes the CPU overlaps), a sort of each key's references by (producer, seq)
 * (usually a check that they already are), then one sequential walk that assigns stream and
 * message ids and fills the per-message columns.
 *
 * Ids come out in (key id, producer id, seq) order, so each stream's messages are contiguous
 * and in seq order (`MessageTable.streamStart`), and so are each key's streams and messages.
 * The process events of each message come out grouped too (`evByMsg`, in event order). Ids depend on arrival order (interned ids
 * do), which nothing in a result may depend on. References of one message keep their arrival
 * order, so "first" folds (firstSend, firstAck) see them as the incremental table did.
 */
import type { RefLog } from './refLog.ts';
import { TAG_ACK, TAG_PROCESS, TAG_SEND } from './refLog.ts';

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
  firstSend: Float64Array;
  firstAck: Float64Array;
  /** Process events of message m: evByMsg[evByMsgStart[m] .. evByMsgStart[m + 1]), in event order. */
  evByMsgStart: Int32Array;
  evByMsg: Int32Array;
}

/**
 * Builds the tables from `log` (keys ids below `keyCount`) and sets evMsg[ev] for each
 * process event in the log. The log is cleared.
 */
export function buildMessages(log: RefLog, keyCount: number, evMsg: Int32Array): BuiltMessages {
  const { keyStart, prod, seq, at, tag } = groupByKey(log, keyCount);

  // Sort each key's references by (producer, seq), stably; count streams and messages.
  const sorter = new RangeSorter(prod, seq, at, tag);
  let streamCount = 0;
  let messageCount = 0;
  let processCount = 0;
  for (let k = 0; k < keyCount; k++) {
    const lo = keyStart[k];
    const hi = keyStart[k + 1];
    if (lo === hi) continue;
    if (!isSorted(prod, seq, lo, hi)) sorter.sort(lo, hi);
    streamCount++;
    messageCount++;
    if (tag[lo] === TAG_PROCESS) processCount++;
    for (let i = lo + 1; i < hi; i++) {
      if (tag[i] === TAG_PROCESS) processCount++;
      if (prod[i] !== prod[i - 1]) {
        streamCount++;
        messageCount++;
      } else if (seq[i] !== seq[i - 1]) messageCount++;
    }
  }

  const sA = new Int32Array(streamCount);
  const sB = new Int32Array(streamCount);
  const streamStart = new Int32Array(streamCount + 1);
  const mA = new Int32Array(messageCount);
  const mB = new Int32Array(messageCount);
  const sendCount = new Int32Array(messageCount);
  const ackCount = new Int32Array(messageCount);
  const ackFlags = new Uint8Array(messageCount);
  const firstSend = new Float64Array(messageCount).fill(NaN);
  const firstAck = new Float64Array(messageCount).fill(NaN);
  const evByMsgStart = new Int32Array(messageCount + 1);
  const evByMsg = new Int32Array(processCount);
  let e = 0;
  let st = -1;
  let m = -1;
  for (let k = 0; k < keyCount; k++) {
    const lo = keyStart[k];
    const hi = keyStart[k + 1];
    for (let i = lo; i < hi; i++) {
      const p = prod[i];
      const q = seq[i];
      if (i === lo || p !== prod[i - 1]) {
        st++;
        sA[st] = p;
        sB[st] = k;
        streamStart[st] = m + 1;
        m++;
        mA[m] = st;
        mB[m] = q;
        evByMsgStart[m] = e;
      } else if (q !== seq[i - 1]) {
        m++;
        mA[m] = st;
        mB[m] = q;
        evByMsgStart[m] = e;
      }
      const t = tag[i];
      const x = at[i];
      if (t === TAG_PROCESS) {
        evMsg[x] = m;
        evByMsg[e++] = x;
      } else if (t === TAG_SEND) {
        sendCount[m]++;
        if (!(firstSend[m] <= x)) firstSend[m] = x;
      } else {
        ackCount[m]++;
        ackFlags[m] |= t & ~TAG_ACK;
        if (!(firstAck[m] <= x)) firstAck[m] = x;
      }
    }
  }
  streamStart[streamCount] = messageCount;
  evByMsgStart[messageCount] = e;
  return {
    streams: new StreamTable(sA, sB, streamCount),
    messages: new MessageTable(mA, mB, messageCount, streamStart),
    sendCount,
    ackCount,
    ackFlags,
    firstSend,
    firstAck,
    evByMsgStart,
    evByMsg,
  };
}

/** At most 2^this buckets in the first pass of groupByKey. */
const BUCKETS_LOG2 = 8;

/**
 * A stable counting sort of the log's references by key: keyStart[k] .. keyStart[k + 1] are
 * key k's, in arrival order. With many keys, in two passes so that the scattered writes stay
 * in cache: first into buckets of 2^shift keys (a few hundred buckets, so few write
 * positions per column), then each bucket by key through a small buffer.
 * The log is cleared.
 */
function groupByKey(log: RefLog, keyCount: number) {
  const n = log.length;
  const keyStart = new Int32Array(keyCount + 1);
  for (let c = 0; c < log.keys.length; c++) {
    const keys = log.keys[c];
    const len = log.chunkLength(c);
    for (let i = 0; i < len; i++) keyStart[keys[i] + 1]++;
  }
  for (let k = 0; k < keyCount; k++) keyStart[k + 1] += keyStart[k];
  let shift = 0;
  while (keyCount >>> shift > 1 << BUCKETS_LOG2) shift++;
  const buckets = (keyCount + (1 << shift) - 1) >>> shift;
  const bucketFill = new Int32Array(buckets);
  for (let b = 0; b < buckets; b++) bucketFill[b] = keyStart[b << shift];

  const prod = new Int32Array(n);
  const seq = new Int32Array(n);
  const at = new Float64Array(n);
  const tag = new Uint8Array(n);
  const key = shift > 0 ? new Int32Array(n) : null; // only needed by the second pass
  for (let c = 0; c < log.keys.length; c++) {
    const ks = log.keys[c];
    const ps = log.producers[c];
    const ss = log.seqs[c];
    const as = log.ats[c];
    const ts = log.tags[c];
    const len = log.chunkLength(c);
    for (let i = 0; i < len; i++) {
      const k = ks[i];
      const j = bucketFill[k >>> shift]++;
      prod[j] = ps[i];
      seq[j] = ss[i];
      at[j] = as[i];
      tag[j] = ts[i];
      if (key !== null) key[j] = k;
    }
  }
  log.clear();
  if (key === null) return { keyStart, prod, seq, at, tag };

  let longest = 0;
  for (let b = 0; b < buckets; b++) {
    const len = keyStart[Math.min(keyCount, (b + 1) << shift)] - keyStart[b << shift];
    if (len > longest) longest = len;
  }
  const bProd = new Int32Array(longest);
  const bSeq = new Int32Array(longest);
  const bAt = new Float64Array(longest);
  const bTag = new Uint8Array(longest);
  const bKey = new Int32Array(longest);
  const fill = keyStart.slice(0, keyCount);
  for (let b = 0; b < buckets; b++) {
    const lo = keyStart[b << shift];
    const len = keyStart[Math.min(keyCount, (b + 1) << shift)] - lo;
    bProd.set(prod.subarray(lo, lo + len));
    bSeq.set(seq.subarray(lo, lo + len));
    bAt.set(at.subarray(lo, lo + len));
    bTag.set(tag.subarray(lo, lo + len));
    bKey.set(key.subarray(lo, lo + len));
    for (let i = 0; i < len; i++) {
      const j = fill[bKey[i]]++;
      prod[j] = bProd[i];
      seq[j] = bSeq[i];
      at[j] = bAt[i];
      tag[j] = bTag[i];
    }
  }
  return { keyStart, prod, seq, at, tag };
}

function isSorted(prod: Int32Array, seq: Int32Array, lo: number, hi: number): boolean {
  for (let i = lo + 1; i < hi; i++) {
    const dp = prod[i] - prod[i - 1];
    if (dp < 0 || (dp === 0 && seq[i] < seq[i - 1])) return false;
  }
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
  private tmpU = new Uint8Array(0);

  constructor(
    private readonly prod: Int32Array,
    private readonly seq: Int32Array,
    private readonly at: Float64Array,
    private readonly tag: Uint8Array,
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
      this.tmpU = new Uint8Array(this.tmpI.length);
    }
    const { tmpI, tmpF, tmpU } = this;
    for (const col of [this.prod, this.seq]) {
      for (let i = 0; i < n; i++) tmpI[i] = col[lo + perm[i]];
      col.set(tmpI.subarray(0, n), lo);
    }
    for (let i = 0; i < n; i++) tmpF[i] = this.at[lo + perm[i]];
    this.at.set(tmpF.subarray(0, n), lo);
    for (let i = 0; i < n; i++) tmpU[i] = this.tag[lo + perm[i]];
    this.tag.set(tmpU.subarray(0, n), lo);
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
