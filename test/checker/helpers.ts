/** Shared test helpers: random histories and checker-vs-oracle comparison. */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { CheckOutcome } from '../../harness/checker/checker.ts';
import { K_ABSENT, K_FALSE, K_NULL, K_NUMBER, K_OTHER, K_STRING, K_TRUE } from '../../harness/checker/lineParser.ts';
import type { Example } from '../../harness/checker/types.ts';
import { TYPES, exampleOrder, oracle, tally, type Identity, type OracleType } from './oracle.ts';

export type Ev = Record<string, unknown>;

/** The identity of a checker example, in the oracle's terms. */
export function exampleIdentity(type: OracleType, ex: Example): Identity {
  if (type === 'split') return { key: ex.key };
  if (type === 'lost' || type === 'unseen' || type === 'abandoned') return { key: ex.key, producer: ex.producer, seq: ex.seq };
  const e = ex.event as Record<string, unknown>;
  return {
    key: ex.key,
    producer: ex.producer,
    seq: ex.seq,
    consumer: e.consumer,
    lane: e.lane,
    offset: e.offset,
    start: e.start,
    end: e.end,
    outcome: e.outcome,
  };
}

/** Asserts the checker's outcome equals the oracle's on every type: counts, keys, examples, times. */
export function assertMatchesOracle(events: Ev[], outcome: CheckOutcome, maxExamples = 5, options: { correctClocks?: boolean } = {}): void {
  const o = oracle(events, options);
  for (const t of TYPES) {
    // The uncertain qualifier (times of two hosts closer than their clocks are known).
    const uncertainItems = o.uncertain[t];
    const u = outcome.anomalies[t].uncertain;
    assert.deepEqual(u ? { count: u.count, keys: u.keys } : { count: 0, keys: 0 }, tally(uncertainItems), `${t}: uncertain count/keys`);
    assert.deepEqual((u?.examples ?? []).map((ex) => exampleIdentity(t, ex)), exampleOrder(uncertainItems).slice(0, maxExamples).map((i) => i.identity), `${t}: uncertain examples`);
    assert.deepEqual(
      outcome.uncertain.list().filter((x) => x.type === t).map((x) => `${x.time}|${x.key}`).sort(),
      uncertainItems.map((x) => `${x.time}|${x.key}`).sort(),
      `${t}: uncertain occurrence times`,
    );
    const items = o.items[t];
    const got = outcome.anomalies[t];
    assert.deepEqual({ count: got.count, keys: got.keys }, tally(items), `${t}: count/keys`);
    const want = exampleOrder(items).slice(0, maxExamples).map((i) => i.identity);
    assert.deepEqual(got.examples.map((ex) => exampleIdentity(t, ex)), want, `${t}: examples`);
    const times = (list: { key: string | null; time: number }[]) =>
      list.map((x) => `${x.time}|${x.key}`).sort();
    assert.deepEqual(
      times(outcome.occurrences.list().filter((x) => x.type === t)),
      times(items),
      `${t}: occurrence times`,
    );
  }
}

const producers = ['p1', 'p2'];
const keys = ['a', 'b'];

/**
 * Random histories over a tiny universe so that collisions (ties, resends, several acks,
 * redeliveries, overlaps, phantoms) are common: a handful of messages is drawn first, and
 * most events refer to one of them. `undelivered`: few process events and more `remaining`
 * events, so that most acked messages are never delivered and their ack lanes decide.
 */
export function historyArb(opts: { maxEvents?: number; undelivered?: boolean; clocks?: boolean } = {}): fc.Arbitrary<Ev[]> {
  if (opts.clocks) {
    return fc.tuple(historyArb({ ...opts, clocks: false }), clockEventsArb()).map(([events, clocks]) => [...events, ...clocks]);
  }
  const time = fc.integer({ min: 0, max: 30 });
  const id = fc.record({ producer: fc.constantFrom(...producers), key: fc.constantFrom(...keys), seq: fc.integer({ min: 1, max: 4 }) });
  return fc.uniqueArray(id, { minLength: 1, maxLength: 8, selector: (m) => `${m.producer}/${m.key}/${m.seq}` }).chain((ids) => {
    const known = fc.constantFrom(...ids);
    const send = fc.record({ m: known, at: time }).map(({ m, at }): Ev => ({ type: 'send', key: m.key, producer: m.producer, seq: m.seq, at }));
    // Acks name the lane the broker put the message on, or none; 7 is read as the lane "7".
    const ackLane = fc.constantFrom<string | number | undefined>('l1', 'l1', 'l2', 'l3', 7, undefined, undefined);
    const ack = fc.record({ m: known, at: time, ok: fc.constantFrom(true, true, false, null, undefined), lane: ackLane }).map(({ m, at, ok, lane }) => {
      const e: Ev = { type: 'ack', key: m.key, producer: m.producer, seq: m.seq, at };
      if (ok !== undefined) e.ok = ok;
      if (lane !== undefined) e.lane = lane;
      return e;
    });
    const target = fc.oneof(
      { weight: 12, arbitrary: known.map((m) => ({ key: m.key as string | null, producer: m.producer as string | null, seq: m.seq as number | null })) },
      { weight: 2, arbitrary: id.map((m) => ({ key: m.key as string | null, producer: m.producer as string | null, seq: m.seq as number | null })) },
      { weight: 1, arbitrary: fc.constant({ key: null, producer: null, seq: null }) },
      { weight: 1, arbitrary: known.map((m) => ({ key: m.key as string | null, producer: m.producer as string | null, seq: null })) },
    );
    const proc = fc
      .record({
        t: target,
        consumer: fc.constantFrom('c1', 'c2', undefined),
        lane: fc.constantFrom('l1', 'l1', 'l2', 'l3', undefined),
        offset: fc.constantFrom(1, 2, undefined),
        start: time,
        duration: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 8 }) }, { weight: 1, arbitrary: fc.constant(-1) }),
        outcome: fc.constantFrom('ok', 'ok', 'ok', 'error', undefined),
      })
      .map((r) => {
        const e: Ev = { type: 'process', key: r.t.key, producer: r.t.producer, seq: r.t.seq, start: r.start };
        if (r.consumer !== undefined) e.consumer = r.consumer;
        if (r.lane !== undefined) e.lane = r.lane;
        if (r.offset !== undefined) e.offset = r.offset;
        if (r.duration >= 0) e.end = r.start + r.duration;
        if (r.outcome !== undefined) e.outcome = r.outcome;
        e.received = r.start;
        return e;
      });
    const other = fc.record({ type: fc.constantFrom('commit', 'rebalance', 'mark'), at: time });
    // What the broker still held: empty (lost), some (unseen), or not known (unseen); flat or
    // with some lanes, empty or not (l3 is never reported: its messages go by the total).
    const lanes = fc.record({ l1: fc.constantFrom(0, 2), l2: fc.constantFrom(0, 2), '7': fc.constantFrom(0, 1) }, { requiredKeys: [] });
    const remaining = fc
      .record({ at: time, held: fc.constantFrom(0, 0, 3, -1), lanes: fc.option(lanes, { nil: undefined, freq: 2 }) })
      .map((r): Ev => {
        const e: Ev = { type: 'remaining', at: r.at, known: r.held >= 0, total: r.held >= 0 ? r.held : null };
        if (r.lanes) e.lanes = r.lanes;
        return e;
      });
    return fc.array(
      fc.oneof({ weight: 8, arbitrary: send }, { weight: 6, arbitrary: ack }, { weight: opts.undelivered ? 3 : 18, arbitrary: proc }, { weight: 2, arbitrary: other }, { weight: opts.undelivered ? 4 : 1, arbitrary: remaining }),
      { maxLength: opts.maxEvents ?? 40, size: 'max' },
    );
  });
}

/**
 * Clock events of two other hosts: c1 ran on host "a" (sometimes), c2 on host "b"; each host
 * measured one to three times, far apart (so its clock's own times keep their order), with
 * offsets (a drift when they differ) and uncertainties on the scale of the histories' times.
 * A worker is named by some of its host's measurements only, as when it started late.
 */
export function clockEventsArb(): fc.Arbitrary<Ev[]> {
  const host = (name: string, worker: string) =>
    fc.uniqueArray(fc.integer({ min: -2, max: 3 }), { minLength: 1, maxLength: 3 }).chain((slots) =>
      fc.tuple(...slots.map((slot) => fc.record({ offset: fc.integer({ min: -12, max: 12 }), uncertainty: fc.constantFrom(0, 1, 2, 4), named: fc.boolean() }).map((r) => ({ slot, ...r })))),
    ).map((ms) => ms.map((m, i): Ev => ({ type: 'clock', host: name, at: m.slot * 50, offset: m.offset, uncertainty: m.uncertainty, workers: m.named || i === 0 ? [worker] : [] })));
  return fc.tuple(fc.option(host('a', 'c1'), { nil: undefined }), host('b', 'c2')).map(([a, b]) => [...(a ?? []), ...b]);
}

/** JSONL text of events. */
export function toJsonl(events: Ev[]): string {
  return events.map((e) => JSON.stringify(e)).join('\n') + '\n';
}

/** The fields the line parsers read, in their field-id order (id = index + 1). */
export const PARSER_FIELDS = ['type', 'key', 'producer', 'seq', 'at', 'ok', 'consumer', 'lane', 'offset', 'start', 'end', 'outcome', 'name', 'kind', 'phase'] as const;

/** JSON.parse of a line, or threw: true. */
export function parseJson(line: string): { parsed?: unknown; threw: boolean } {
  try {
    return { parsed: JSON.parse(line), threw: false };
  } catch {
    return { threw: true };
  }
}

/**
 * For every field a line parser reads: its id, name, the kind JSON.parse says it has, and the
 * value (what a parser's Fields must hold for the same line).
 */
export function forEachExpectedField(obj: Record<string, unknown>, fn: (f: number, name: string, kind: number, v: unknown) => void): void {
  PARSER_FIELDS.forEach((name, i) => {
    const v = Object.prototype.hasOwnProperty.call(obj, name) ? obj[name] : undefined;
    const kind =
      v === undefined ? K_ABSENT : v === null ? K_NULL : v === true ? K_TRUE : v === false ? K_FALSE
        : typeof v === 'number' ? K_NUMBER : typeof v === 'string' ? K_STRING : K_OTHER;
    fn(i + 1, name, kind, v);
  });
}
