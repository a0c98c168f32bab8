/**
 * The final pass: judges a stored history against the anomaly definitions (docs/anomalies.md).
 *
 * Terms used below (the definitions are the contract; this file follows them literally):
 * - A message is (producer, key, seq). It is *sent* when the history has a send or an ack for
 *   it; process events of a message that was never sent are phantoms and take part in no
 *   other check.
 * - An acked (ok) message with no process event is *lost* or *unseen*, as the history's
 *   latest `remaining` event (what the broker still held) says: with none (old histories),
 *   lost; not known, unseen (it may still be on its way). Else by its lane when every ack of
 *   it (ok or not) names the same lane and the event reports that lane: unseen when the lane
 *   holds more than 0; lost when it holds 0 and the broker holds nothing off its reported
 *   lanes (total minus the lanes' sum: a retry or dead-letter queue, whose messages may be
 *   any lane's), else unseen. Else
 *   (no ack lane, acks naming different lanes, an ack without a lane beside one with, or a
 *   lane the event does not report) by the total: lost when 0, unseen when more. A lane is
 *   the ack's `lane` as text (a number as its decimal text). Several `remaining` events: the
 *   latest; at one instant the one holding most (unknown holds most); a full tie keeps the
 *   lanes all of them report, with the largest count. None of these turns unseen into lost.
 * - Its ack status: any ack `ok:true` -> ok; else unknown when some ack is null/missing or a
 *   send has no ack (fewer acks than sends); else (every ack false) failed.
 * - An *apply* is a process event with outcome ok and an end. Applies are ordered by end, then
 *   start, consumer, lane, offset; a message's first apply is its earliest.
 * - "Lands after" compares ends strictly, as the definition of reorder says (regression too).
 * - A process event whose producer is null names no message either: a phantom.
 * - Each occurrence has a time, used to scope expectations to fault windows: an apply's end
 *   (duplicate, reorder, regression, gap, ghost, unknown-delivered, displaced); an event's end,
 *   or its start if it has none (phantom, retried); the start of the overlapping event
 *   (overlap); the end of the first apply from a second lane (split); the first send, else
 *   the first ack (lost, unseen); the last attempt's end or start (abandoned).
 * - Examples: events earliest by (start, end [none last], consumer, lane, offset [none first],
 *   producer, key, seq, outcome); messages lowest by (producer, key, seq); split keys by key.
 *   Displaced applies are those outside the longest run that keeps the earliest landings.
 *
 * - Times from several hosts: the store has mapped every event a worker on another host
 *   stamped to the runner's clock (history-columns.ts). A reorder, a regression or an overlap
 *   decided by two times stamped on different hosts is *uncertain* when they differ by no more
 *   than the two hosts' uncertainties together (the runner's is 0; two times of one host share
 *   its clock's error): it is counted in the type's `uncertain` qualifier, with its margin, not
 *   as the type. It is the type when any pair that makes it one differs by more: a reorder when
 *   some higher seq's first apply landed earlier by more than the pair's uncertainty, an
 *   overlap when it ran together with some other attempt (from its start to the earlier of
 *   the two ends) longer than that. An order that looks right by less than the
 *   uncertainty is not reported. Split and displaced take the mapped times as they are.
 *
 * Nothing here may depend on the order events arrived in: interned ids are never compared,
 * only the strings they stand for.
 */
import { compareIds } from './interner.ts';
import { Occurrences } from './occurrences.ts';
import { Scratch } from './scratch.ts';
import { ACK_ANY_TRUE, ACK_ANY_UNKNOWN, OUT_ERROR, OUT_OK, type HistoryStore } from './history-columns.ts';
import { TopK } from './topk.ts';
import { ANOMALY_TYPES, type AnomalyType, type BrokerRemaining } from './types.ts';

export const ST_UNSENT = 0;
export const ST_OK = 1;
export const ST_FAILED = 2;
export const ST_UNKNOWN = 3;

/** Message flags: sent and applied; applied more than once; covers its successor (no gap). */
const MF_APPLIED = 1;
const MF_REPEATED = 2;
const MF_COVERS = 4;

export const T = Object.fromEntries(ANOMALY_TYPES.map((t, i) => [t, i])) as Record<AnomalyType, number>;

export class FinalPass {
  readonly messageCount: number;
  readonly eventCount: number;
  /** Per message: ST_* */
  readonly status: Uint8Array;
  /** Per message: its first apply's event id, or -1. */
  readonly firstApply: Int32Array;
  /** Per message: MF_* bits, for the per-stream pass. */
  readonly msgFlags: Uint8Array;
  /** Events of each message: ids evByMsgStart[m] .. evByMsgStart[m + 1]. */
  evByMsgStart!: Int32Array;
  /** Messages of each stream, in seq order: ids msgByStreamStart[st] .. msgByStreamStart[st + 1]. */
  msgByStreamStart!: Int32Array;
  /** Events of sent messages per key, in start order. */
  evByKeyStart!: Int32Array;
  evByKey!: Int32Array;

  readonly counts = new Array<number>(ANOMALY_TYPES.length).fill(0);
  readonly keyCounts = new Array<number>(ANOMALY_TYPES.length).fill(0);
  private readonly keyMarks: (Uint8Array | null)[] = ANOMALY_TYPES.map(() => null);
  readonly top: TopK[];
  readonly occurrences: Occurrences;
  private readonly scratch: Scratch;
  /** Uncertain anomalies (see the header): counts, keys, examples, times, and per example its margin and uncertainty. */
  readonly uncertainCounts = new Array<number>(ANOMALY_TYPES.length).fill(0);
  readonly uncertainKeyCounts = new Array<number>(ANOMALY_TYPES.length).fill(0);
  private readonly uncertainKeyMarks: (Uint8Array | null)[] = ANOMALY_TYPES.map(() => null);
  readonly uncertainTop: TopK[];
  readonly uncertainOccurrences: Occurrences;
  readonly uncertainMargins: Array<Map<number, { margin: number; uncertainty: number }>> = ANOMALY_TYPES.map(() => new Map());
  /** Hosts whose clocks stamped events (1: one clock, no uncertain rule). */
  private readonly hostCount: number;

  constructor(
    readonly store: HistoryStore,
    maxExamples: number,
  ) {
    this.messageCount = store.messages.size;
    this.eventCount = store.events;
    this.status = new Uint8Array(this.messageCount);
    this.firstApply = new Int32Array(this.messageCount).fill(-1);
    this.msgFlags = new Uint8Array(this.messageCount);
    this.occurrences = new Occurrences(store.keys);
    this.scratch = new Scratch(Math.max(this.eventCount, this.messageCount));
    const byEvent = (a: number, b: number) => this.cmpEvent(a, b);
    const byMessage = (a: number, b: number) => this.cmpMessage(a, b);
    const byKey = (a: number, b: number) => compareIds(this.store.keys, a, b);
    this.top = ANOMALY_TYPES.map((t) =>
      new TopK(maxExamples, t === 'lost' || t === 'unseen' || t === 'abandoned' ? byMessage : t === 'split' ? byKey : byEvent),
    );
    this.uncertainTop = ANOMALY_TYPES.map(() => new TopK(maxExamples, byEvent));
    this.uncertainOccurrences = new Occurrences(store.keys);
    this.hostCount = store.hostUncertainty.length;
  }

  /** How far apart two times of these hosts must be for their order to be known (µs). */
  private pairUncertainty(ha: number, hb: number): number {
    const u = this.store.hostUncertainty;
    return ha === hb ? 0 : u[ha] + u[hb];
  }

  run(): void {
    this.computeStatus();
    this.groupEventsByMessage();
    this.judgeMessages();
    this.judgePhantomRows();
    this.groupMessagesByStream();
    this.judgeStreams();
    this.groupEventsByKey();
    this.judgeKeys();
  }

  // ---- Orders ------------------------------------------------------------------------------

  /** Apply order: end, start, consumer, lane, offset. */
  cmpApply(a: number, b: number): number {
    const s = this.store;
    return (
      s.evEnd[a] - s.evEnd[b] ||
      s.evStart[a] - s.evStart[b] ||
      compareIds(s.consumers, s.evConsumer[a], s.evConsumer[b]) ||
      compareIds(s.lanes, s.evLane[a], s.evLane[b]) ||
      cmpNaNFirst(s.evOffset[a], s.evOffset[b])
    );
  }

  /** Apply order, then example order (a total order on what an example shows). */
  cmpApplyThenEvent(a: number, b: number): number {
    return this.cmpApply(a, b) || this.cmpEvent(a, b);
  }

  /** Example order for events: start, end, consumer, lane, offset, then identity. */
  cmpEvent(a: number, b: number): number {
    const s = this.store;
    return (
      s.evStart[a] - s.evStart[b] ||
      cmpNaNLast(s.evEnd[a], s.evEnd[b]) ||
      compareIds(s.consumers, s.evConsumer[a], s.evConsumer[b]) ||
      compareIds(s.lanes, s.evLane[a], s.evLane[b]) ||
      cmpNaNFirst(s.evOffset[a], s.evOffset[b]) ||
      compareIds(s.producers, s.producerOf(a), s.producerOf(b)) ||
      compareIds(s.keys, s.keyOf(a), s.keyOf(b)) ||
      cmpNaNFirst(s.seqOf(a), s.seqOf(b)) ||
      s.evOutcome[a] - s.evOutcome[b]
    );
  }

  /** Example order for messages: producer, key, seq. */
  cmpMessage(a: number, b: number): number {
    const s = this.store;
    const sa = s.messages.a[a];
    const sb = s.messages.a[b];
    return (
      compareIds(s.producers, s.streams.a[sa], s.streams.a[sb]) ||
      compareIds(s.keys, s.streams.b[sa], s.streams.b[sb]) ||
      s.messages.b[a] - s.messages.b[b]
    );
  }

  isApply(ev: number): boolean {
    const s = this.store;
    return s.evOutcome[ev] === OUT_OK && s.evEnd[ev] === s.evEnd[ev];
  }

  // ---- Recording ---------------------------------------------------------------------------

  private record(type: number, time: number, keyId: number, exampleId: number, c1 = -1, c2 = -1): void {
    this.counts[type]++;
    this.occurrences.add(type, time, keyId);
    if (keyId >= 0 && firstOfKey(this.keyMarks, type, keyId, this.store.keys.size)) this.keyCounts[type]++;
    this.top[type].offer(exampleId, c1, c2);
  }

  private recordUncertain(type: number, time: number, keyId: number, exampleId: number, margin: number, uncertainty: number, c1 = -1): void {
    this.uncertainCounts[type]++;
    this.uncertainOccurrences.add(type, time, keyId);
    if (keyId >= 0 && firstOfKey(this.uncertainKeyMarks, type, keyId, this.store.keys.size)) this.uncertainKeyCounts[type]++;
    this.uncertainTop[type].offer(exampleId, c1);
    this.uncertainMargins[type].set(exampleId, { margin, uncertainty });
  }

  private keyOfMessage(m: number): number {
    return this.store.streams.b[this.store.messages.a[m]];
  }

  // ---- Per message -------------------------------------------------------------------------

  private computeStatus(): void {
    const s = this.store;
    for (let m = 0; m < this.messageCount; m++) {
      const sends = s.sendCount[m];
      const acks = s.ackCount[m];
      if (sends === 0 && acks === 0) this.status[m] = ST_UNSENT;
      else if (s.ackFlags[m] & ACK_ANY_TRUE) this.status[m] = ST_OK;
      else if (acks === 0 || acks < sends || s.ackFlags[m] & ACK_ANY_UNKNOWN) this.status[m] = ST_UNKNOWN;
      else this.status[m] = ST_FAILED;
    }
  }

  private groupEventsByMessage(): void {
    // The store numbers events by message (messageTable.ts): the order is the ids.
    this.evByMsgStart = this.store.evByMsgStart;
  }

  private judgeMessages(): void {
    const s = this.store;
    const { evByMsgStart: starts, status, firstApply } = this;
    // A message's events are ids starts[m] .. starts[m + 1] (numbered in message order).
    const ends = s.evEnd;
    const outcomes = s.evOutcome;
    const r = s.remaining;
    const byTotal = r === null || (r.known && r.total === 0) ? T.lost : T.unseen;
    const ackLane = s.ackLane;
    const byLane = r !== null && r.known && r.lanes !== null ? laneVerdicts(s, r, byTotal) : null;
    for (let m = 0; m < this.messageCount; m++) {
      const lo = starts[m];
      const hi = starts[m + 1];
      const st = status[m];
      const key = this.keyOfMessage(m);
      if (st === ST_UNSENT) {
        for (let ev = lo; ev < hi; ev++) this.record(T.phantom, eventTime(s, ev), key, ev);
        continue;
      }
      if (st === ST_FAILED) this.msgFlags[m] = MF_COVERS;
      if (lo === hi) {
        if (st === ST_OK) this.record(byLane !== null && ackLane[m] > 0 ? byLane[ackLane[m]] : byTotal, s.firstSend[m] === s.firstSend[m] ? s.firstSend[m] : s.firstAck[m], key, m);
        continue;
      }
      let first = -1;
      let lastTime = -Infinity;
      for (let ev = lo; ev < hi; ev++) {
        const t = eventTime(s, ev);
        if (t > lastTime) lastTime = t;
        const out = outcomes[ev];
        if (out === OUT_ERROR) this.record(T.retried, t, key, ev);
        else if (out === OUT_OK && ends[ev] === ends[ev] && (first < 0 || this.cmpApply(ev, first) < 0)) first = ev;
      }
      firstApply[m] = first;
      if (first < 0) {
        this.record(T.abandoned, lastTime, key, m);
        continue;
      }
      this.msgFlags[m] |= MF_APPLIED | MF_COVERS;
      for (let ev = lo; ev < hi; ev++) {
        const end = ends[ev];
        if (outcomes[ev] !== OUT_OK || end !== end) continue;
        if (ev !== first) {
          this.msgFlags[m] |= MF_REPEATED;
          this.record(T.duplicate, end, key, ev, first);
        }
        if (st === ST_FAILED) this.record(T.ghost, end, key, ev);
        else if (st === ST_UNKNOWN) this.record(T['unknown-delivered'], end, key, ev);
      }
    }
  }

  /** Process events whose key, producer or seq could not name any message. */
  private judgePhantomRows(): void {
    const s = this.store;
    for (let ev = 0; ev < this.eventCount; ev++) {
      if (s.evMsg[ev] < 0) this.record(T.phantom, eventTime(s, ev), s.keyOf(ev), ev);
    }
  }

  // ---- Per stream (producer, key) ----------------------------------------------------------

  private groupMessagesByStream(): void {
    // The store numbers messages by stream, then seq (messageTable.ts): the order is the ids.
    this.msgByStreamStart = this.store.messages.streamStart;
  }

  private judgeStreams(): void {
    const s = this.store;
    const { msgByStreamStart: starts } = this;
    const seqs = s.messages.b;
    const ends = s.evEnd;
    const M = this.messageCount;
    // Message ids are in stream order, so message i is the i-th of the walk (o* below are the
    // per-message columns under the walk's names). The ends of first applies are gathered
    // first: that loop's loads are independent and the CPU overlaps their cache misses.
    const oSeq = seqs;
    const oFirst = this.firstApply;
    const oFlags = this.msgFlags;
    const oEnd = this.scratch.f64(0, M);
    for (let i = 0; i < M; i++) oEnd[i] = oFirst[i] >= 0 ? ends[oFirst[i]] : NaN;

    let maxLen = 0;
    for (let st = 0; st < s.streams.size; st++) maxLen = Math.max(maxLen, starts[st + 1] - starts[st]);
    const firsts = new Int32Array(maxLen); // first applies of one stream
    const seqAt = new Int32Array(maxLen);
    const tails = new Int32Array(maxLen);
    const runFrom = new Int32Array(maxLen);
    const byLanding = (a: number, b: number) => ends[a] - ends[b] || seqs[s.evMsg[a]] - seqs[s.evMsg[b]];
    // Several clocks: the earliest landing of a higher seq per host, for the uncertain rule.
    const multi = this.hostCount > 1;
    const evHost = s.evHost;
    const laterEndOn = new Float64Array(this.hostCount);

    for (let st = 0; st < s.streams.size; st++) {
      const lo = starts[st];
      const hi = starts[st + 1];
      const key = s.streams.b[st];

      // gap: a first apply of s > 1 whose predecessor was never applied (and did not
      // definitely fail to send). Messages are in seq order, so s-1 is the previous entry.
      for (let i = lo; i < hi; i++) {
        if (!(oFlags[i] & MF_APPLIED) || oSeq[i] === 1) continue;
        const covered = i > lo && oSeq[i - 1] === oSeq[i] - 1 && (oFlags[i - 1] & MF_COVERS) !== 0;
        if (!covered) this.record(T.gap, oEnd[i], key, oFirst[i], i > lo && oSeq[i - 1] === oSeq[i] - 1 ? i - 1 : -1);
      }

      // reorder and regression: walk seqs downwards keeping the earliest-landing first apply
      // of any higher seq (its message in `later`; equal ends keep the lower seq).
      let laterEnd = Infinity;
      let later = -1;
      if (multi) laterEndOn.fill(Infinity);
      for (let i = hi - 1; i >= lo; i--) {
        const flags = oFlags[i];
        if (!(flags & MF_APPLIED)) continue;
        const end = oEnd[i];
        if (later >= 0) {
          if (end > laterEnd) {
            if (!multi) this.record(T.reorder, end, key, oFirst[i], later);
            else this.landedAfter(T.reorder, oFirst[i], end, laterEndOn, laterEnd, later, key);
          }
          if (flags & MF_REPEATED) {
            const m = i;
            const fa = oFirst[i];
            for (let ev = this.evByMsgStart[m]; ev < this.evByMsgStart[m + 1]; ev++) {
              if (ev === fa || !this.isApply(ev) || !(ends[ev] > laterEnd)) continue;
              if (!multi) this.record(T.regression, ends[ev], key, ev, later);
              else this.landedAfter(T.regression, ev, ends[ev], laterEndOn, laterEnd, later, key);
            }
          }
        }
        if (end <= laterEnd) {
          laterEnd = end;
          later = i;
        }
        if (multi) {
          const h = evHost[oFirst[i]];
          if (end < laterEndOn[h]) laterEndOn[h] = end;
        }
      }

      // displaced: first applies minus the longest strictly increasing run of seqs, in
      // landing order. Which applies are reported depends on the run chosen; the canonical run
      // keeps the earliest-landing applies, so (as with reorder) the late ones are displaced.
      let n = 0;
      let inOrder = true; // landing order already follows seq order: nothing displaced
      let lastEnd = -Infinity;
      for (let i = lo; i < hi; i++) {
        if (!(oFlags[i] & MF_APPLIED)) continue;
        if (oEnd[i] < lastEnd) inOrder = false;
        lastEnd = oEnd[i];
        firsts[n++] = oFirst[i];
      }
      if (n < 2 || inOrder) continue;
      sortRange(firsts, 0, n, byLanding);
      for (let i = 0; i < n; i++) seqAt[i] = seqs[s.evMsg[firsts[i]]];
      // runFrom[i]: the longest increasing run starting at i (patience sorting from the right
      // on negated seqs; `tails` holds the smallest tail value of each length).
      let len = 0;
      for (let i = n - 1; i >= 0; i--) {
        const x = -seqAt[i];
        let a = 0;
        let b = len;
        while (a < b) {
          const mid = (a + b) >>> 1;
          if (tails[mid] < x) a = mid + 1;
          else b = mid;
        }
        tails[a] = x;
        if (a === len) len++;
        runFrom[i] = a + 1;
      }
      if (len === n) continue;
      let need = len;
      let last = -Infinity;
      for (let i = 0; i < n; i++) {
        if (need > 0 && runFrom[i] === need && seqAt[i] > last) {
          need--;
          last = seqAt[i];
        } else {
          this.record(T.displaced, ends[firsts[i]], key, firsts[i], n, len);
        }
      }
    }
  }

  /**
   * An apply `ev` that landed (at `end`) after a higher seq's first apply (the earliest of them
   * at `laterEnd`, message `later`; per host in `laterEndOn`): the type when some host's
   * earliest landed before it by more than the pair's uncertainty, else uncertain.
   */
  private landedAfter(type: number, ev: number, end: number, laterEndOn: Float64Array, laterEnd: number, later: number, key: number): void {
    const h = this.store.evHost[ev];
    for (let o = 0; o < laterEndOn.length; o++) {
      if (end - laterEndOn[o] > this.pairUncertainty(h, o)) return this.record(type, end, key, ev, later);
    }
    const laterHost = this.store.evHost[this.firstApply[later]];
    this.recordUncertain(type, end, key, ev, end - laterEnd, this.pairUncertainty(h, laterHost), later);
  }

  /**
   * The attempt at order[g] started at `t` while another of the key ran (one that started
   * earlier, latest end per host in `runningOn`, or one of its start group i..j): an overlap
   * when, with one of them, the two ran together (from `t` to the earlier end) longer than the
   * pair's uncertainty, else uncertain, with the longest such margin. (Measured from the later
   * start, the margin never exceeds how far the two could shift apart before they no longer
   * overlap, so a certain overlap is one whatever the clocks' error.)
   */
  private startedWhileRunning(order: Int32Array, kEnd: Float64Array, i: number, j: number, g: number, t: number, k: number, runningOn: Float64Array): void {
    const s = this.store;
    const h = s.evHost[order[g]];
    let margin = -Infinity;
    let uncertainty = 0;
    const consider = (by: number, hostOfOther: number) => {
      const u = this.pairUncertainty(h, hostOfOther);
      // Equal margins: the pair known best, so the example is the same whatever the line order.
      if (by > margin || (by === margin && u < uncertainty)) {
        margin = by;
        uncertainty = u;
      }
      return by > u || u === 0; // one clock: an instant's overlap is one too
    };
    const endG = kEnd[g] === kEnd[g] ? kEnd[g] : Infinity;
    for (let o = 0; o < runningOn.length; o++) {
      if (runningOn[o] > t && consider(Math.min(runningOn[o], endG) - t, o)) return this.record(T.overlap, t, k, order[g]);
    }
    for (let o = i; o < j; o++) {
      if (o !== g && kEnd[o] > t && consider(Math.min(kEnd[o], endG) - t, s.evHost[order[o]])) return this.record(T.overlap, t, k, order[g]);
    }
    this.recordUncertain(T.overlap, t, k, order[g], margin, uncertainty);
  }

  // ---- Per key -----------------------------------------------------------------------------

  /**
   * Events of sent messages grouped by key, in id order. Message ids run key by key and event
   * ids message by message (messageTable.ts), so this keeps the events of sent messages.
   */
  private groupEventsByKey(): void {
    const s = this.store;
    const keyCount = s.keys.size;
    const mStart = this.evByMsgStart;
    const start = new Int32Array(keyCount + 1);
    const order = new Int32Array(mStart[this.messageCount]);
    let n = 0;
    let key = 0; // keys below this have their start set
    for (let m = 0; m < this.messageCount; m++) {
      if (this.status[m] === ST_UNSENT) continue;
      const lo = mStart[m];
      const hi = mStart[m + 1];
      if (lo === hi) continue;
      const k = this.keyOfMessage(m);
      while (key <= k) start[key++] = n;
      for (let ev = lo; ev < hi; ev++) order[n++] = ev;
    }
    while (key <= keyCount) start[key++] = n;
    this.evByKeyStart = start;
    this.evByKey = order.subarray(0, n);
  }

  private judgeKeys(): void {
    const s = this.store;
    const { evByKeyStart: starts, evByKey: order } = this;
    const n = order.length;
    // Gathered in key order (see judgeStreams): start, end, and the lane of applies
    // (-1: an apply without lane, -2: not an apply).
    const kStart = this.scratch.f64(0, n);
    for (let i = 0; i < n; i++) kStart[i] = s.evStart[order[i]];
    const byStart = (a: number, b: number) => s.evStart[a] - s.evStart[b];
    for (let k = 0; k < s.keys.size; k++) {
      const lo = starts[k];
      const hi = starts[k + 1];
      let sorted = true;
      for (let i = lo + 1; i < hi && sorted; i++) sorted = kStart[i - 1] <= kStart[i];
      if (sorted) continue;
      sortRange(order, lo, hi, byStart);
      for (let i = lo; i < hi; i++) kStart[i] = s.evStart[order[i]];
    }
    const kEnd = this.scratch.f64(1, n);
    const kLane = this.scratch.i32(0, n);
    for (let i = 0; i < n; i++) {
      const ev = order[i];
      kEnd[i] = s.evEnd[ev];
      kLane[i] = s.evOutcome[ev] === OUT_OK && kEnd[i] === kEnd[i] ? s.evLane[ev] : -2;
    }

    // Several clocks: the latest end among earlier starts per host, for the uncertain rule.
    const multi = this.hostCount > 1;
    const runningOn = new Float64Array(this.hostCount);
    for (let k = 0; k < s.keys.size; k++) {
      const lo = starts[k];
      const hi = starts[k + 1];
      if (hi - lo < 2) continue;

      // overlap: an event starting while another of the key runs (other.start <= start <
      // other.end). Events are in start order; `runningUntil` is the latest end among those
      // that started strictly earlier; events with the same start are checked as a group.
      let runningUntil = -Infinity;
      if (multi) runningOn.fill(-Infinity);
      for (let i = lo; i < hi; ) {
        const t = kStart[i];
        let j = i;
        let openInGroup = 0;
        while (j < hi && kStart[j] === t) {
          if (kEnd[j] > t) openInGroup++;
          j++;
        }
        if (runningUntil > t || openInGroup > 1 || (openInGroup === 1 && j - i > 1)) {
          for (let g = i; g < j; g++) {
            const others = openInGroup - (kEnd[g] > t ? 1 : 0);
            if (!(runningUntil > t || others > 0)) continue;
            if (!multi) this.record(T.overlap, t, k, order[g]);
            else this.startedWhileRunning(order, kEnd, i, j, g, t, k, runningOn);
          }
        }
        for (let g = i; g < j; g++) {
          if (kEnd[g] > runningUntil) runningUntil = kEnd[g];
          if (multi && kEnd[g] > runningOn[s.evHost[order[g]]]) runningOn[s.evHost[order[g]]] = kEnd[g];
        }
        i = j;
      }

      // split: applies of the key from more than one lane. The key became split with the
      // earliest apply (apply order) from a lane other than the first apply's. Applies equal
      // in apply order are told apart by example order, so the example shows the same
      // producer and seq whatever the line order.
      let first = -1;
      for (let i = lo; i < hi; i++) {
        if (kLane[i] < 0) continue;
        if (first < 0 || kEnd[i] < kEnd[first] || (kEnd[i] === kEnd[first] && this.cmpApplyThenEvent(order[i], order[first]) < 0)) first = i;
      }
      if (first < 0) continue;
      const lane0 = kLane[first];
      let second = -1;
      for (let i = lo; i < hi; i++) {
        if (kLane[i] < 0 || kLane[i] === lane0) continue;
        if (second < 0 || kEnd[i] < kEnd[second] || (kEnd[i] === kEnd[second] && this.cmpApplyThenEvent(order[i], order[second]) < 0)) second = i;
      }
      if (second >= 0) this.record(T.split, kEnd[second], k, k, order[first], order[second]);
    }
  }
}

/**
 * The verdict on an undelivered acked message by its ack lane: indexed by lane id + 1 (see
 * HistoryStore.ackLane); lanes the broker reported decide by their count, the others by the total.
 */
function laneVerdicts(s: HistoryStore, r: BrokerRemaining, byTotal: number): Uint8Array {
  const lanes = r.lanes ?? {};
  const out = new Uint8Array(s.lanes.size + 1).fill(byTotal);
  let onLanes = 0;
  for (const n of Object.values(lanes)) onLanes += n;
  // Held off the reported lanes (retry, dead-letter queues): could be any lane's messages.
  const emptyLane = (r.total ?? Infinity) - onLanes > 0 ? T.unseen : T.lost;
  for (const [lane, n] of Object.entries(lanes)) {
    const id = s.lanes.find(lane);
    if (id >= 0) out[id + 1] = n === 0 ? emptyLane : T.unseen;
  }
  return out;
}

/** Marks a key for a type; true the first time (the type's distinct keys). */
function firstOfKey(marksByType: (Uint8Array | null)[], type: number, keyId: number, keys: number): boolean {
  let marks = marksByType[type];
  if (!marks) marks = marksByType[type] = new Uint8Array(keys);
  if (marks[keyId] !== 0) return false;
  marks[keyId] = 1;
  return true;
}

/** When an event happened: its end, or its start if it never ended. */
export function eventTime(s: HistoryStore, ev: number): number {
  const end = s.evEnd[ev];
  return end === end ? end : s.evStart[ev];
}

function cmpNaNFirst(a: number, b: number): number {
  if (a === b) return 0;
  if (a !== a) return b !== b ? 0 : -1;
  if (b !== b) return 1;
  return a - b;
}

function cmpNaNLast(a: number, b: number): number {
  if (a === b) return 0;
  if (a !== a) return b !== b ? 0 : 1;
  if (b !== b) return -1;
  return a - b;
}

/** Sorts arr[lo, hi) by cmp; insertion sort for the short ranges most groups are. */
export function sortRange(arr: Int32Array, lo: number, hi: number, cmp: (a: number, b: number) => number): void {
  if (hi - lo < 2) return;
  // Histories are mostly written in time order, so groups often arrive sorted.
  let sorted = true;
  for (let i = lo + 1; i < hi; i++) {
    if (cmp(arr[i - 1], arr[i]) > 0) {
      sorted = false;
      break;
    }
  }
  if (sorted) return;
  if (hi - lo > 24) {
    arr.subarray(lo, hi).sort(cmp);
    return;
  }
  for (let i = lo + 1; i < hi; i++) {
    const v = arr[i];
    let j = i - 1;
    while (j >= lo && cmp(arr[j], v) > 0) {
      arr[j + 1] = arr[j];
      j--;
    }
    arr[j + 1] = v;
  }
}
