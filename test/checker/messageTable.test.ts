/**
 * The bulk message table (refLog.ts + messageTable.ts, built by HistoryStore.seal) against an
 * incremental reference, the way the store used to fold events one by one: same messages,
 * same per-message counts, flags and first times (including which of 0 and -0 came first),
 * same message for every process event, same phantoms.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Fields } from '../../harness/checker/lineParser.ts';
import { ACK_ANY_TRUE, ACK_ANY_UNKNOWN, HistoryStore, MAX_SEQ } from '../../harness/checker/history-columns.ts';

type Ev = Record<string, unknown>;

interface Folded {
  sends: number;
  acks: number;
  flags: number;
  firstSend: number;
  firstAck: number;
}

/** The reference: one Map entry per (producer, key, seq), folded in arrival order. */
function reference(events: Ev[]): { messages: Map<string, Folded>; processIds: (string | null)[] } {
  const messages = new Map<string, Folded>();
  const processIds: (string | null)[] = [];
  const entry = (e: Ev) => {
    const id = JSON.stringify([e.producer, e.key, e.seq]);
    let m = messages.get(id);
    if (!m) messages.set(id, (m = { sends: 0, acks: 0, flags: 0, firstSend: NaN, firstAck: NaN }));
    return { id, m };
  };
  for (const e of events) {
    if (e.type === 'send') {
      const { m } = entry(e);
      m.sends++;
      if (!(m.firstSend <= (e.at as number))) m.firstSend = e.at as number;
    } else if (e.type === 'ack') {
      const { m } = entry(e);
      m.acks++;
      m.flags |= e.ok === true ? ACK_ANY_TRUE : e.ok === false ? 0 : ACK_ANY_UNKNOWN;
      if (!(m.firstAck <= (e.at as number))) m.firstAck = e.at as number;
    } else {
      const named = typeof e.key === 'string' && typeof e.producer === 'string' && Number.isInteger(e.seq);
      processIds.push(named ? entry(e).id : null);
    }
  }
  return { messages, processIds };
}

function checkStore(events: Ev[]): void {
  const store = new HistoryStore();
  const fields = new Fields();
  for (const e of events) {
    fields.fromObject(e);
    assert.equal(store.ingest(fields), null);
  }
  store.seal();
  const want = reference(events);
  const { messages, streams } = store;
  assert.equal(messages.size, want.messages.size, 'message count');
  const idOf = (m: number) => {
    const st = messages.a[m];
    return JSON.stringify([store.producers.value(streams.a[st]), store.keys.value(streams.b[st]), messages.b[m]]);
  };
  for (let m = 0; m < messages.size; m++) {
    const w = want.messages.get(idOf(m));
    assert.ok(w, `message ${idOf(m)} exists`);
    const got: Folded = {
      sends: store.sendCount[m],
      acks: store.ackCount[m],
      flags: store.ackFlags[m],
      firstSend: store.firstSend[m],
      firstAck: store.firstAck[m],
    };
    assert.deepEqual(got, w, idOf(m));
    assert.ok(Object.is(got.firstSend, w.firstSend) && Object.is(got.firstAck, w.firstAck), `${idOf(m)}: signed zero`);
    assert.equal(messages.get(messages.a[m], messages.b[m]), m, 'get finds the message');
  }
  // Streams: contiguous messages in increasing seq order; one stream per (producer, key).
  const pairs = new Set<string>();
  for (let st = 0; st < streams.size; st++) {
    pairs.add(`${streams.a[st]}/${streams.b[st]}`);
    const lo = messages.streamStart[st];
    const hi = messages.streamStart[st + 1];
    assert.ok(hi > lo, 'a stream has messages');
    for (let m = lo; m < hi; m++) {
      assert.equal(messages.a[m], st);
      if (m > lo) assert.ok(messages.b[m] > messages.b[m - 1], 'seq order');
    }
    assert.equal(messages.get(st, messages.b[lo] - 1), -1);
  }
  assert.equal(pairs.size, streams.size);
  assert.equal(messages.streamStart[streams.size], messages.size);
  assert.equal(messages.get(-1, 1), -1);
  assert.equal(messages.get(streams.size, 1), -1);
  // Process events: numbered anew, one id each; the same message, or a phantom row.
  assert.equal(store.events, want.processIds.length);
  assert.deepEqual([...store.evId].sort((a, b) => a - b), [...Array(store.events).keys()], 'evId is a permutation');
  for (let ev = 0; ev < store.events; ev++) {
    const id = want.processIds[ev];
    const now = store.evId[ev];
    if (id === null) assert.ok(store.evMsg[now] < 0, `event ${ev} is a phantom`);
    else assert.equal(idOf(store.evMsg[now]), id, `event ${ev}`);
  }
  // Ids run message by message (each message's events in arrival order), phantoms last in
  // arrival order: what a stable counting sort of events by message gives.
  const byMsg: number[][] = Array.from({ length: messages.size + 1 }, () => []);
  for (let ev = 0; ev < store.events; ev++) {
    const m = store.evMsg[store.evId[ev]];
    byMsg[m >= 0 ? m : messages.size].push(ev);
  }
  assert.deepEqual([...store.evId].map((_, i) => i), byMsg.flat().map((ev) => store.evId[ev]), 'event ids in message order');
  for (let m = 0; m < messages.size; m++) assert.equal(store.evByMsgStart[m + 1] - store.evByMsgStart[m], byMsg[m].length);
}

/** A seeded xorshift32: rand(n) is an integer in [0, n). */
function xorshift(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}

/** Events over a few producers and keys (several producers per key), huge seqs, 0 and -0. */
function eventsArb(maxLength: number): fc.Arbitrary<Ev[]> {
  const seq = fc.oneof(fc.integer({ min: 1, max: 6 }), fc.constantFrom(MAX_SEQ, MAX_SEQ - 1, 2 ** 30));
  const at = fc.oneof(fc.integer({ min: -3, max: 20 }), fc.constantFrom(0, -0, 1.5, 1e15));
  const ident = fc.record({ producer: fc.constantFrom('p', 'q', 'r'), key: fc.constantFrom('a', 'b', 'k—ключ'), seq });
  const ev = fc.oneof(
    { weight: 3, arbitrary: fc.record({ i: ident, at }).map(({ i, at }): Ev => ({ type: 'send', ...i, at })) },
    {
      weight: 3,
      arbitrary: fc.record({ i: ident, at, ok: fc.constantFrom(true, false, null) }).map(({ i, at, ok }): Ev => ({ type: 'ack', ...i, at, ok })),
    },
    { weight: 4, arbitrary: fc.record({ i: ident, start: at }).map(({ i, start }): Ev => ({ type: 'process', ...i, start })) },
    {
      weight: 1,
      arbitrary: fc
        .record({ i: ident, start: at, which: fc.constantFrom('key', 'producer', 'seq') })
        .map(({ i, start, which }): Ev => ({ type: 'process', ...i, [which]: null, start })),
    },
  );
  return fc.array(ev, { maxLength });
}

test('bulk message table = incremental fold (short histories)', () => {
  fc.assert(fc.property(eventsArb(40), (events) => checkStore(events)), { numRuns: 400 });
});

test('bulk message table = incremental fold (long ranges: packed and comparator sorts)', () => {
  fc.assert(fc.property(eventsArb(400), (events) => checkStore(events)), { numRuns: 60 });
});

test('bulk message table: long streams out of order and in order', () => {
  const events: Ev[] = [];
  for (let i = 0; i < 3000; i++) {
    const seq = ((i * 7919) % 1000) + 1; // a permutation, repeated
    events.push({ type: 'send', producer: 'p', key: 'one-producer', seq, at: i });
    events.push({ type: 'process', producer: i % 3 === 0 ? 'q' : 'p', key: 'two-producers', seq, start: i });
    events.push({ type: 'ack', producer: 'p', key: `k${i % 50}`, seq: i + 1, at: -i, ok: i % 2 === 0 });
    // Equal first times of opposite sign: which one is kept depends on arrival order.
    const zero = i < 40 ? -0 : 0; // the first of each message is -0
    events.push({ type: 'send', producer: i % 2 === 0 ? 'p' : 'q', key: 'two-producers', seq: (i % 40) + 1, at: zero });
    events.push({ type: 'ack', producer: 'p', key: 'one-producer', seq: (i % 30) + 1, at: -zero, ok: null });
  }
  checkStore(events);
});

test('bulk message table: thousands of keys (grouped by key in two passes)', () => {
  const rand = xorshift(12345);
  const events: Ev[] = [];
  for (let i = 0; i < 30000; i++) {
    const ident = { producer: `p${rand(3)}`, key: `key-${rand(5000)}`, seq: rand(4) + 1 };
    const r = rand(10);
    if (r < 3) events.push({ type: 'send', ...ident, at: rand(7) === 0 ? -0 : rand(100) });
    else if (r < 6) events.push({ type: 'ack', ...ident, at: rand(100), ok: [true, false, null][rand(3)] });
    else if (r < 9) events.push({ type: 'process', ...ident, start: rand(100) });
    else events.push({ type: 'process', ...ident, seq: null, start: rand(100) });
  }
  checkStore(events);
});

test('bulk message table: full staging buffers, keys first seen late, buckets of keys', () => {
  // More references than the staging buffer holds several times over; new keys keep
  // appearing, so buckets are added as the log fills; a key's references span many drains.
  const rand = xorshift(777);
  const events: Ev[] = [];
  for (let i = 0; i < 120000; i++) {
    const keys = 10 + Math.floor(i / 25); // up to ~4800 keys, several buckets
    const ident = { producer: `p${rand(2)}`, key: `key-${rand(keys)}`, seq: rand(6) + 1 };
    const r = rand(10);
    if (r < 3) events.push({ type: 'send', ...ident, at: rand(1000) });
    else if (r < 6) events.push({ type: 'ack', ...ident, at: rand(1000), ok: [true, false, null][rand(3)] });
    else events.push({ type: 'process', ...ident, start: rand(1000) });
  }
  checkStore(events);
});
