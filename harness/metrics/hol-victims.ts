/**
 * Head-of-line victims (the result's `consumers.holVictims`, in every run with poison
 * messages): messages of other keys that waited behind a failing one. A message whose handling
 * failed blocks its lane beyond a normal handling from its first attempt's end to its last
 * attempt's end: the retries and their backoff, until the give-up. A message given up at its
 * first attempt (dead-letter, park-key) blocks nothing beyond what any message does. A message of
 * another key is its victim in one of two ways, told apart by when the consumer received it:
 *   - behind the lane (received only after the block ended: the lane handed out nothing while
 *     the failing message held it, as in partition mode): it was on the same lane, was written
 *     (acked) before the block ended, and its handling started only after; the time it waited
 *     inside the block is its added latency;
 *   - behind a worker (received before the block ended, as in key-level modes, where the lane
 *     flows but a retrying message holds one of its consumer's workers through its backoff): on
 *     the same consumer, it waited for a worker (from its receipt, or its own key's previous
 *     handling's end if later, to its start) while the block held one; that overlap is its added
 *     latency. With several workers this is an upper bound: the waiter would have had the held
 *     worker, but other waiters may have been ahead of it.
 * The arithmetic for Kafka: a partition at 500 msg/s blocked 5 minutes leaves
 * 500 x 300 = 150,000 messages of innocent keys behind the poisoned one; with sessions, groups
 * or key-level concurrency only the key waits. Two passes over the history, keeping only
 * what the blocked lanes need.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface HolVictims {
  /** Messages whose handling failed at least once (they block their lane while retried). */
  blockers: number;
  /** Their blocks' lengths summed, ms. */
  blockedMs: number;
  /** Messages of other keys that waited behind a block. */
  victims: number;
  /** Distinct keys among them. */
  victimKeys: number;
  /** Added latency per victim (time waited inside blocks), ms. */
  addedMsMean: number;
  addedMsMax: number;
  addedMsTotal: number;
}

interface Line {
  type: string;
  key: string | null;
  producer: string | null;
  seq: number | null;
  lane?: string;
  consumer?: string;
  received?: number;
  at?: number;
  ok?: boolean | null;
  start?: number;
  end?: number;
  outcome?: string;
}

async function* lines(file: string): AsyncGenerator<Line> {
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (!line.includes('"process"') && !line.includes('"ack"')) continue;
    try {
      yield JSON.parse(line) as Line;
    } catch {
      /* the checker reports bad lines */
    }
  }
}

const idOf = (e: Line) => `${e.producer}\u0000${e.key}\u0000${e.seq}`;

export async function holVictims(file: string): Promise<HolVictims> {
  // Pass 1: the blocks, per message that failed at least once.
  // start: the first attempt's end (the message is first handled by then); end: the last's.
  const blocks = new Map<string, { key: string; lane: string; consumer: string; received: number; first: number; start: number; end: number; failed: boolean }>();
  for await (const e of lines(file)) {
    if (e.type !== 'process' || e.key === null || e.start === undefined) continue;
    const id = idOf(e);
    const ended = e.end ?? e.start;
    const b = blocks.get(id) ?? { key: e.key, lane: e.lane ?? '', consumer: e.consumer ?? '', received: e.received ?? e.start, first: e.start, start: ended, end: ended, failed: false };
    if (e.start < b.first) {
      b.first = e.start;
      b.start = ended;
      b.consumer = e.consumer ?? '';
      b.received = e.received ?? e.start;
    }
    b.end = Math.max(b.end, ended);
    if (e.outcome === 'error') b.failed = true;
    blocks.set(id, b);
  }
  type Block = { key: string; start: number; end: number };
  const byLane = new Map<string, Block[]>();
  const byConsumer = new Map<string, Block[]>();
  const add = (m: Map<string, Block[]>, k: string, b: Block) => (m.get(k) ?? m.set(k, []).get(k)!).push(b);
  let blockers = 0;
  let blockedUs = 0;
  for (const b of blocks.values()) {
    if (!b.failed) continue;
    blockers++;
    blockedUs += b.end - b.start;
    add(byLane, b.lane, b);
    add(byConsumer, b.consumer, b);
  }
  const out: HolVictims = { blockers, blockedMs: Math.round(blockedUs / 1000), victims: 0, victimKeys: 0, addedMsMean: 0, addedMsMax: 0, addedMsTotal: 0 };
  if (blockers === 0) return out;
  // Pass 2: when each message of a blocked lane was written (its first ok ack).
  const written = new Map<string, number>();
  for await (const e of lines(file)) {
    if (e.type === 'ack' && e.ok === true && e.at !== undefined) {
      const id = idOf(e);
      written.set(id, Math.min(written.get(id) ?? Infinity, e.at));
    }
  }
  // Each message's own key's previous handling's end on its consumer (a key-level mode queues
  // it behind that, which is no one else's doing).
  const ownTurn = new Map<string, number>();
  const perKey = new Map<string, { id: string; first: number; end: number; consumer: string }[]>();
  for (const [id, m] of blocks) (perKey.get(m.key) ?? perKey.set(m.key, []).get(m.key)!).push({ id, first: m.first, end: m.end, consumer: m.consumer });
  for (const list of perKey.values()) {
    list.sort((a, b) => a.first - b.first);
    const lastEnd = new Map<string, number>();
    for (const x of list) {
      ownTurn.set(x.id, lastEnd.get(x.consumer) ?? -Infinity);
      lastEnd.set(x.consumer, Math.max(lastEnd.get(x.consumer) ?? -Infinity, x.end));
    }
  }
  const keys = new Set<string>();
  let addedUs = 0;
  let maxUs = 0;
  for (const [id, m] of blocks) {
    let waited = 0;
    // Behind the lane: not handed to the consumer until a block of its lane ended.
    const at = written.get(id);
    for (const w of byLane.get(m.lane) ?? []) {
      if (at === undefined || w.key === m.key || w.end <= w.start || at >= w.end || m.first < w.end || m.received < w.end) continue;
      waited += w.end - Math.max(at, w.start);
    }
    // Behind a worker: in the consumer, waiting for a worker while a block held one.
    const from = Math.max(m.received, ownTurn.get(id) ?? -Infinity);
    for (const w of from < m.first ? (byConsumer.get(m.consumer) ?? []) : []) {
      if (w.key === m.key || w.end <= w.start || m.received >= w.end) continue;
      waited += Math.max(0, Math.min(m.first, w.end) - Math.max(from, w.start));
    }
    if (waited <= 0) continue;
    out.victims++;
    keys.add(m.key);
    addedUs += waited;
    maxUs = Math.max(maxUs, waited);
  }
  out.victimKeys = keys.size;
  out.addedMsTotal = Math.round(addedUs / 1000);
  out.addedMsMax = Math.round(maxUs / 1000);
  out.addedMsMean = out.victims ? Number((addedUs / 1000 / out.victims).toFixed(1)) : 0;
  return out;
}
