/**
 * The open-loop schedule and the deterministic message plan.
 *
 * Schedule time 0 is the start of the warm-up; the measured phase starts at warmupMs and the
 * producers stop at warmupMs + durationMs (or after `messages` messages, warm-up included,
 * whichever comes first). Message i's intended send time never depends on acks:
 *   fixed      i / perSecond
 *   steps      piecewise: each step sends perSecond for forMs; after the last step its rate
 *              goes on (a last step of 0 ends the plan there)
 *   unlimited  none: the producer sends as fast as the client takes messages (intended = actual)
 *
 * The plan (key, producer, seq, size, poison of every message) is a pure function of the seed
 * and the workload. Independent named streams (rng.fork) make keys, sizes and poison choices
 * identical in every process; each producer process regenerates the whole plan and keeps its
 * own messages, which costs well under a second per million messages (see the test).
 */
import type { PoisonSpec, RateSpec, SizeSpec, WorkloadSpec } from '../spec/types.ts';
import { Rng, hash32 } from './rng.ts';
import { keyChooser, keyName, type KeyChooser } from './keys.ts';
import { poisonPicker } from './poison-picker.ts';
import { subKeyOf } from './split.ts';

/** Microseconds from schedule start at which message i should be sent, or null (unlimited). */
export type IntendedFn = (i: number) => number | null;

export function intendedSchedule(rate: RateSpec): IntendedFn {
  switch (rate.kind) {
    case 'unlimited':
      return () => null;
    case 'fixed': {
      const r = rate.perSecond;
      if (!(r > 0)) throw new RangeError(`fixed rate must be > 0, got ${r}`);
      return (i) => Math.floor((i * 1e6) / r);
    }
    case 'steps': {
      // Step j covers messages [C[j], C[j+1]) and times [T[j], T[j+1]).
      const steps = rate.steps;
      if (steps.length === 0) throw new RangeError('steps rate needs at least one step');
      const C: number[] = [0];
      const T: number[] = [0];
      for (const s of steps) {
        C.push(C[C.length - 1] + (s.perSecond * s.forMs) / 1000);
        T.push(T[T.length - 1] + s.forMs * 1000);
      }
      const last = steps[steps.length - 1];
      return (i) => {
        for (let j = 0; j < steps.length; j++) {
          if (i < C[j + 1]) return Math.floor(T[j] + ((i - C[j]) * 1e6) / steps[j].perSecond);
        }
        // Past the steps: the last rate goes on, unless it is 0 (then the plan ends).
        if (!(last.perSecond > 0)) return null;
        const n = steps.length;
        return Math.floor(T[n] + ((i - C[n]) * 1e6) / last.perSecond);
      };
    }
  }
}

/**
 * How many messages the schedule plans before `endUs` (exclusive). Infinity for unlimited rate.
 * For steps ending in a rate of 0, messages past the steps are never planned.
 */
export function messagesBefore(rate: RateSpec, endUs: number): number {
  if (rate.kind === 'unlimited') return Infinity;
  const f = intendedSchedule(rate);
  const before = (i: number) => {
    const t = f(i);
    return t !== null && t < endUs;
  };
  if (!before(0)) return 0;
  let hi = 1;
  while (before(hi)) {
    hi *= 2;
    if (hi > 2 ** 45) return Infinity;
  }
  let lo = hi / 2; // before(lo) true, before(hi) false
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (before(mid)) lo = mid;
    else hi = mid;
  }
  return hi;
}

export function sizePicker(size: SizeSpec): (rng: Rng) => number {
  switch (size.kind) {
    case 'fixed':
      return () => size.bytes;
    case 'uniform':
      return (rng) => rng.intBetween(size.min, size.max);
    case 'choice': {
      const w = size.weights ?? size.bytes.map(() => 1);
      const total = w.reduce((a, b) => a + b, 0);
      const cum: number[] = [];
      let acc = 0;
      for (const x of w) cum.push((acc += x / total));
      return (rng) => {
        const u = rng.next();
        for (let j = 0; j < cum.length; j++) if (u < cum[j]) return size.bytes[j];
        return size.bytes[size.bytes.length - 1];
      };
    }
  }
}

export interface PlannedMessage {
  /** Global index in the plan (0-based). */
  index: number;
  key: string;
  keyIndex: number;
  /** The logical producer (history `producer`) and its position in workload.producers. */
  producer: string;
  producerIndex: number;
  /** The producer process (0-based within its logical producer) that sends this message. */
  process: number;
  /** Per (producer, key), from 1: the entity version this message carries (per sub-key when split). */
  seq: number;
  /** Split keys (workload.keys.split): the entity and its event version; else key and seq. */
  entity: string;
  version: number;
  /** Requested payload size in bytes. */
  size: number;
  /** Intended send time, microseconds from schedule start; null under an unlimited rate. */
  intendedOffsetUs: number | null;
  poison: boolean;
}

export interface PlanInput {
  seed: number;
  workload: Pick<WorkloadSpec, 'keys' | 'rate' | 'size' | 'durationMs' | 'messages' | 'warmupMs' | 'producers'>;
  /** consumers.poison: decides which messages carry the poison flag. */
  poison?: PoisonSpec;
}

export interface ProcessFilter {
  /** Logical producer name. */
  producer: string;
  /** 0-based process index within that producer. */
  process: number;
}

/** Plans of at most this many keys keep each key's name once made (a few MB at most). */
const NAMED_KEYS = 1 << 17;
const SALT_PRODUCER = 0x70726f64; // 'prod'
const SALT_PROCESS = 0x70726f63; // 'proc'

/** The logical producer a key belongs to (a key has a single writer): a stable hash of its name. */
export function producerOfKey(key: string, producers: number): number {
  return producers <= 1 ? 0 : hash32(key, SALT_PRODUCER) % producers;
}

/** The process a key is sharded to within its logical producer (unless sharedKeys). */
export function processOfKey(key: string, processes: number): number {
  return processes <= 1 ? 0 : hash32(key, SALT_PROCESS) % processes;
}

export class MessagePlan {
  /** Messages in the plan: Infinity when only time bounds it (unlimited rate, no `messages`). */
  readonly total: number;
  /** Where the measured phase starts and the producers stop, in µs from schedule start. */
  readonly measuredFromUs: number;
  readonly endUs: number;
  readonly intended: IntendedFn;
  private readonly chooser: KeyChooser;

  constructor(readonly input: PlanInput) {
    const w = input.workload;
    this.measuredFromUs = Math.round(w.warmupMs * 1000);
    this.endUs = w.durationMs === undefined ? Infinity : Math.round((w.warmupMs + w.durationMs) * 1000);
    this.intended = intendedSchedule(w.rate);
    const byTime = Number.isFinite(this.endUs) ? messagesBefore(w.rate, this.endUs) : endOfSteps(w.rate);
    this.total = Math.min(byTime, w.messages ?? Infinity);
    this.chooser = keyChooser(w.keys);
    if (w.producers.length === 0 || w.producers.length > 32_767) throw new RangeError('between 1 and 32767 producers are needed');
  }

  /**
   * The plan in order. With a filter, only that process's messages are materialised; the
   * others are still drawn (cheaply) so seqs and streams stay identical in every process.
   * `limit` caps how many plan positions are walked (for unbounded plans).
   */
  *messages(filter?: ProcessFilter, limit = Infinity): Generator<PlannedMessage> {
    const w = this.input.workload;
    const root = Rng.from(this.input.seed);
    const keysRng = root.fork('keys');
    const sizesRng = root.fork('sizes');
    const poisonRng = root.fork('poison');
    const pickSize = sizePicker(w.size);
    const isPoison = poisonPicker(this.input.poison, poisonRng);
    const n = this.chooser.count;
    const prefix = w.keys.prefix;
    const producers = w.producers;
    const P = producers.length;
    const wantProducer = filter ? producers.findIndex((p) => p.name === filter.producer) : -1;
    if (filter && wantProducer < 0) throw new RangeError(`no producer named "${filter.producer}"`);
    // Per key: owner producer and (sharded) process, -1 until first seen; seq counter.
    const owner = new Int16Array(n).fill(-1); // 10 bytes a key in all: 100 MB at 10M keys
    const shard = new Int32Array(n);
    const seqs = new Uint32Array(n);
    const perProducerCount = new Float64Array(P);
    // Key names made once each (up to NAMED_KEYS keys): a name per message was one string more to make and collect.
    const names: (string | undefined)[] | undefined = n <= NAMED_KEYS ? new Array<string | undefined>(n) : undefined;
    const end = Math.min(this.total, limit);
    for (let i = 0; i < end; i++) {
      const k = this.chooser.pick(keysRng, i);
      const size = pickSize(sizesRng);
      let o = owner[k];
      let name: string | undefined;
      if (o < 0) {
        name = keyName(prefix, k);
        if (names) names[k] = name;
        o = owner[k] = producerOfKey(name, P);
        shard[k] = processOfKey(name, producers[o].processes);
      }
      const seq = ++seqs[k];
      const spec = producers[o];
      const process = spec.sharedKeys ? perProducerCount[o] % spec.processes : shard[k];
      perProducerCount[o]++;
      // The poison draw happens for every message, mine or not, to keep the stream aligned.
      if (filter && (o !== wantProducer || process !== filter.process)) {
        if (this.input.poison) isPoison(''); // the draw only; the answer is not ours
        continue;
      }
      name ??= names?.[k] ?? keyName(prefix, k);
      // Split: the entity's event goes out under its sub-key, numbered per sub-key.
      const sub = w.keys.split ? subKeyOf(name, seq, w.keys.split) : undefined;
      yield {
        index: i,
        key: sub ? sub.key : name,
        keyIndex: k,
        entity: name,
        version: seq,
        producer: spec.name,
        producerIndex: o,
        process,
        seq: sub ? sub.seq : seq,
        size,
        intendedOffsetUs: this.intended(i),
        poison: isPoison(name),
      };
    }
  }
}

/** For plans bounded by `messages` only: steps ending at 0 still end the plan. */
function endOfSteps(rate: RateSpec): number {
  if (rate.kind !== 'steps') return Infinity;
  const last = rate.steps[rate.steps.length - 1];
  if (last.perSecond > 0) return Infinity;
  return messagesBefore(rate, rate.steps.reduce((a, s) => a + s.forMs * 1000, 0));
}
