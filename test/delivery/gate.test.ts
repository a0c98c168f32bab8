/**
 * The delivery gate (harness/delivery/gate.ts): the delivery rules every broker adapter hands
 * its deliveries to. In-process: deliveries are pushed the way a broker client pushes them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Delivery, Settlement } from '../../harness/broker/contract.ts';
import { DeliveryGate, type Incoming } from '../../harness/delivery/gate.ts';
import { concurrencyMode } from '../../harness/consumer/concurrency/registry.ts';
import { checkEvents } from '../../harness/checker/checker.ts';

const tick = () => new Promise<void>((r) => setImmediate(r));

/** A delivery that records how it was settled. */
function incoming(lane: string, n: number, extra: Partial<Incoming> = {}): Incoming & { settled: Settlement[] } {
  const settled: Settlement[] = [];
  return { payload: Buffer.from(String(n)), lane, offset: n, settled, settle: async (how) => void settled.push(how), ...extra };
}

/** onDelivery that holds each delivery until released by the test. */
function holding() {
  const seen: Delivery[] = [];
  const release = new Map<string, () => void>();
  const onDelivery = (d: Delivery) => {
    seen.push(d);
    return new Promise<void>((r) => release.set(d.payload.toString(), r));
  };
  return { seen, onDelivery, release: (n: number) => release.get(String(n))!() };
}

const options = { id: 'c1', log: () => {}, onHandlerError: 'requeue' as const };

test("a lane's next delivery is handed out only after onDelivery of its previous one resolved; other lanes go on", async () => {
  const h = holding();
  const gate = new DeliveryGate(h.onDelivery, { ...options, maxInFlight: 10 });
  const a1 = gate.accept(incoming('a', 1));
  void gate.accept(incoming('a', 2));
  void gate.accept(incoming('b', 3));
  await tick();
  assert.deepEqual(h.seen.map((d) => d.payload.toString()), ['1', '3']);
  h.release(1);
  assert.equal(await a1, true);
  await tick();
  assert.deepEqual(h.seen.map((d) => d.payload.toString()), ['1', '3', '2']);
});

test('at most maxInFlight handed-out deliveries stay unsettled', async () => {
  const seen: Delivery[] = [];
  const gate = new DeliveryGate(async (d) => void seen.push(d), { ...options, maxInFlight: 2 });
  for (let i = 1; i <= 3; i++) void gate.accept(incoming(`l${i}`, i));
  await tick();
  assert.equal(seen.length, 2);
  assert.equal(gate.inFlight, 2);
  assert.equal(gate.unsettled, 3);
  await seen[0]!.settle('ack');
  await tick();
  assert.equal(seen.length, 3);
});

test('a handler that throws without settling: its delivery is settled as the adapter says, and the lane goes on', async () => {
  const lines: string[] = [];
  const d1 = incoming('a', 1);
  const d2 = incoming('a', 2);
  let calls = 0;
  const gate = new DeliveryGate(
    async (d) => {
      calls++;
      if (d.offset === 1) throw new Error('boom');
      await d.settle('ack');
    },
    { ...options, maxInFlight: 1, log: (l) => lines.push(l) },
  );
  void gate.accept(d1);
  await gate.accept(d2);
  assert.equal(calls, 2);
  assert.deepEqual(d1.settled, ['requeue']);
  assert.deepEqual(d2.settled, ['ack']);
  assert.match(lines.join('\n'), /handler failed on a \(boom\)/);
});

test('an onDelivery that throws at once (not an async function) is handled like one that rejects', async () => {
  const lines: string[] = [];
  const d1 = incoming('a', 1);
  const d2 = incoming('a', 2);
  const gate = new DeliveryGate(
    (d) => {
      if (d.offset === 1) throw new Error('sync boom');
      return d.settle('ack');
    },
    { ...options, maxInFlight: 1, log: (l) => lines.push(l) },
  );
  assert.equal(await gate.accept(d1), true);
  assert.equal(await gate.accept(d2), true);
  assert.deepEqual(d1.settled, ['requeue']);
  assert.deepEqual(d2.settled, ['ack']);
  assert.match(lines.join('\n'), /handler failed on a \(sync boom\)/);
});

test('a handed-out delivery has offset and deliveryCount only when the adapter gave them, and counts once however often it is settled', async () => {
  const seen: Delivery[] = [];
  const gate = new DeliveryGate(async (d) => void seen.push(d), { ...options, maxInFlight: 1 });
  const plain = { payload: Buffer.from('x'), lane: 'a', settled: [] as Settlement[], settle: async (how: Settlement) => void plain.settled.push(how) };
  void gate.accept(plain);
  void gate.accept(incoming('b', 7, { deliveryCount: 2 }));
  await tick();
  assert.equal(seen.length, 1);
  assert.deepEqual(Object.keys(seen[0]!).filter((k) => k === 'offset' || k === 'deliveryCount'), []);
  assert.equal('offset' in seen[0]!, false);
  await seen[0]!.settle('ack');
  await seen[0]!.settle('requeue');
  assert.deepEqual(plain.settled, ['ack', 'requeue'], "the adapter's settle is called each time (it ignores all but the first)");
  await tick();
  assert.equal(seen.length, 2, 'the second settlement did not free a second slot');
  assert.equal(gate.inFlight, 1);
  assert.equal(seen[1]!.offset, 7);
  assert.equal(seen[1]!.deliveryCount, 2);
  assert.equal(seen[1]!.lane, 'b');
});

test('a delivery the client took back before its turn is dropped; waiting ones can be taken back or returned on close', async () => {
  const h = holding();
  const gate = new DeliveryGate(h.onDelivery, { ...options, maxInFlight: 1 });
  void gate.accept(incoming('a', 1));
  const stale = gate.accept(incoming('b', 2, { claim: () => false }));
  const b3 = gate.accept(incoming('b', 3));
  const c4 = gate.accept(incoming('c', 4));
  await tick();
  assert.deepEqual(gate.takeWaiting('c').map((d) => d.offset), [4]);
  assert.equal(await c4, false);
  await h.seen[0]!.settle('ack');
  h.release(1);
  assert.equal(await stale, false);
  await tick();
  assert.deepEqual(h.seen.map((d) => d.offset), [1, 3]);
  void gate.accept(incoming('d', 5));
  assert.deepEqual(gate.close().map((d) => d.offset), [5]);
  h.release(3);
  assert.equal(await b3, true);
});

test("what the adapter's settle takes back of the lane is not handed out by the same settlement", async () => {
  // SQS gives a failed message's group back with it: the later messages of the batch still waiting.
  const seen: Delivery[] = [];
  const gate: DeliveryGate = new DeliveryGate(async (d) => void seen.push(d), { ...options, maxInFlight: 1 });
  let takenBack: Incoming[] = [];
  void gate.accept(incoming('a', 1, { settle: async () => void (takenBack = gate.takeWaiting('a')) }));
  const a2 = gate.accept(incoming('a', 2));
  await tick();
  assert.deepEqual(seen.map((d) => d.offset), [1]);
  await seen[0]!.settle('requeue');
  assert.deepEqual(takenBack.map((d) => d.offset), [2]);
  assert.equal(await a2, false);
  assert.deepEqual(seen.map((d) => d.offset), [1]);
});

test('keep-alive runs while deliveries wait for a slot; renewals run while a handler holds its delivery', async () => {
  let heartbeats = 0;
  let renewals = 0;
  const h = holding();
  const gate = new DeliveryGate(h.onDelivery, { ...options, maxInFlight: 1, keepAliveMs: 5 });
  void gate.accept(incoming('a', 1, { renew: async () => void renewals++ }));
  void gate.accept(incoming('b', 2, { keepAlive: async () => void heartbeats++ }));
  while (heartbeats < 2 || renewals < 2) await new Promise((r) => setTimeout(r, 5));
  await h.seen[0]!.settle('ack');
  h.release(1);
  await tick();
  const after = renewals;
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(renewals, after, 'no renewals once the delivery is settled');
  gate.close();
});

test('a delivery left unsettled after its handler returned (held back) keeps being renewed until it is settled', async () => {
  let renewals = 0;
  const seen: Delivery[] = [];
  const gate = new DeliveryGate(async (d) => void seen.push(d), { ...options, maxInFlight: 2, keepAliveMs: 5 });
  void gate.accept(incoming('a', 1, { renew: async () => void renewals++ }));
  await tick();
  assert.equal(seen.length, 1, 'handed out, and its handler returned at once');
  const before = renewals;
  while (renewals < before + 3) await new Promise((r) => setTimeout(r, 5));
  assert.equal(gate.inFlight, 1, 'still counts toward the in-flight cap');
  await seen[0]!.settle('ack');
  await tick();
  const after = renewals;
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(renewals, after, 'no renewals once it is settled');
  gate.close();
});

test('every renewal is told to onRenewal, a failed one as failed (the resequencer counts them in its costs)', async () => {
  const told: boolean[] = [];
  let calls = 0;
  const seen: Delivery[] = [];
  const gate = new DeliveryGate(async (d) => void seen.push(d), { ...options, maxInFlight: 2, keepAliveMs: 5, onRenewal: (ok) => void told.push(ok) });
  // The second renewal fails (an expired lock); the others succeed.
  const renew = () => (++calls === 2 ? Promise.reject(new Error('lock lost')) : Promise.resolve());
  void gate.accept(incoming('a', 1, { renew }));
  void gate.accept(incoming('b', 2, { renew }));
  while (told.length < 6) await new Promise((r) => setTimeout(r, 5));
  await Promise.all(seen.map((d) => d.settle('ack')));
  await new Promise((r) => setTimeout(r, 20));
  const after = told.length;
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(told.length, after, 'nothing told once both are settled');
  assert.equal(told.filter((ok) => !ok).length, 1, 'the one failed renewal');
  assert.equal(told.length, calls, 'every renewal told once');
  gate.close();
});

/**
 * The broker hands one process two deliveries of one lane at once (a prefetch, a batch). The gate
 * adds no rule of its own: with a mode that lets them run side by side, the history shows the
 * overlap the broker caused, and the checker reports it; partition mode, the control, shows none.
 */
async function overlapOfOneLane(modeName: string): Promise<number> {
  const mode = concurrencyMode(modeName);
  const scheduler = mode.scheduler(4);
  const events: unknown[] = [];
  let clock = 0;
  const gate = new DeliveryGate(
    (d) =>
      scheduler.accept('k', async () => {
        const start = ++clock;
        await new Promise((r) => setTimeout(r, 20));
        const seq = Number(d.payload.toString());
        events.push({ type: 'process', key: 'k', producer: 'p', seq, consumer: 'c1', lane: d.lane, start, end: ++clock, outcome: 'ok' });
        await d.settle('ack');
      }),
    { ...options, maxInFlight: mode.maxInFlight(4) },
  );
  for (const seq of [1, 2]) events.push({ type: 'send', key: 'k', producer: 'p', seq, at: 0 }, { type: 'ack', key: 'k', producer: 'p', seq, at: 0, ok: true });
  // Both at once, as one batch of the broker.
  await Promise.all([1, 2].map((seq) => gate.accept(incoming('g', seq, { payload: Buffer.from(String(seq)) }))));
  await scheduler.idle();
  return checkEvents(events).anomalies.overlap.count;
}

test('an overlap the broker causes inside one process is still reported (and partition mode, the control, has none)', async () => {
  assert.ok((await overlapOfOneLane('unordered')) > 0);
  assert.equal(await overlapOfOneLane('partition'), 0);
});

test('a renewal that was not due (renew resolves false) is not counted; one that ran is', async () => {
  const counted: boolean[] = [];
  let asked = 0;
  const seen: Delivery[] = [];
  const gate = new DeliveryGate(async (d) => void seen.push(d), { ...options, maxInFlight: 2, keepAliveMs: 5, onRenewal: (ok) => counted.push(ok) });
  // Due every third time asked, as SQS extends visibility only once half of it has passed.
  void gate.accept(incoming('a', 1, { renew: async () => ++asked % 3 === 0 }));
  while (asked < 9) await new Promise((r) => setTimeout(r, 5));
  await seen[0]!.settle('ack');
  await tick();
  assert.ok(counted.length >= 3 && counted.length <= Math.ceil(asked / 3), `counted ${counted.length} of ${asked} asked`);
  assert.ok(counted.every((ok) => ok));
  gate.close();
});

test('lanes worked on side by side (lanesAtOnce) each have their delivery out, however low maxInFlight is', async () => {
  const h = holding();
  const gate = new DeliveryGate(h.onDelivery, { ...options, maxInFlight: 1, lanesAtOnce: 3 });
  for (const [lane, n] of [['a', 1], ['b', 2], ['c', 3], ['d', 4]] as const) void gate.accept(incoming(lane, n));
  await tick();
  // Three lanes at once: the fourth waits for a settlement, as maxInFlight alone would make the second wait.
  assert.deepEqual(h.seen.map((d) => d.payload.toString()), ['1', '2', '3']);
  assert.equal(gate.inFlight, 3);
  const lone = new DeliveryGate(holding().onDelivery, { ...options, maxInFlight: 1 });
  for (const [lane, n] of [['a', 1], ['b', 2]] as const) void lone.accept(incoming(lane, n));
  await tick();
  assert.equal(lone.inFlight, 1);
  gate.close();
  lone.close();
});

test('offer answers at once when onDelivery handled and settled the delivery before returning; the rules hold', async () => {
  const order: string[] = [];
  // Handled at once (settled, no promise) except deliveries of lane 'slow', held until released.
  let release: (() => void) | undefined;
  const gate = new DeliveryGate(
    (d) => {
      order.push(d.payload.toString());
      if (d.lane === 'slow') return new Promise<void>((r) => (release = r));
      void d.settle('ack');
    },
    { ...options, maxInFlight: 1 },
  );
  const settled = (lane: string, n: number) => incoming(lane, n, { settle: () => Promise.resolve() });
  assert.equal(gate.offer(settled('a', 1)), true, 'handled and settled before offer returned: no promise');
  assert.equal(gate.offer(settled('a', 2)), true);
  assert.equal(gate.inFlight, 0);
  // A delivery whose onDelivery is pending: its lane's next one and, at a cap of one in flight
  // (it is unsettled), every other lane's wait behind it, each answered by a promise.
  const slow = gate.offer(settled('slow', 3));
  assert.ok(slow instanceof Promise);
  const slowNext = gate.offer(settled('slow', 4));
  const other = gate.offer(settled('b', 5));
  assert.ok(slowNext instanceof Promise && other instanceof Promise);
  assert.deepEqual(order, ['1', '2', '3']);
  release!();
  await slow;
  assert.deepEqual(order, ['1', '2', '3'], 'still unsettled: the cap holds the others');
  gate.close();
  assert.equal(await other, false);
  assert.equal(await slowNext, false);
});
