/**
 * A worker-side fault kind and a concurrency mode are one file each: the fixtures in
 * fixtures/one-file/ are found the way the harness finds its own (faults/registry.ts,
 * consumer/concurrency/registry.ts) and run through the same parts a worker uses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { WorkerFaults } from '../../harness/faults/worker-hooks.ts';
import { faultKinds } from '../../harness/faults/registry.ts';
import { CONCURRENCY_MODES, concurrencyMode, concurrencySchema, loadConcurrencyModes } from '../../harness/consumer/concurrency/registry.ts';
import type { ConsumerSide, HandlerEffect } from '../../harness/faults/contract.ts';

const FIXTURE = (sub: string) => fileURLToPath(new URL(`./fixtures/one-file/${sub}/`, import.meta.url));
const side: ConsumerSide = { id: 'c1', log: () => {}, flushHistory: () => {} };
const settledSoon = async (p: Promise<void>) => Promise.race([p.then(() => true), new Promise<boolean>((r) => setImmediate(() => r(false)))]);

test('a worker-side fault kind in a folder of its own is loaded by the consumer side and acts on handlers', async () => {
  const kinds = await faultKinds(FIXTURE('faults'));
  assert.deepEqual([...kinds.keys()], ['slow-handlers']);
  const faults = WorkerFaults.consumer(side, FIXTURE('faults'));
  // A start that comes while the hooks still load takes effect once they are loaded.
  faults.receive({ type: 'fault', kind: 'slow-handlers', phase: 'start', args: { extraMs: 1 } });
  await faults.loaded;
  assert.deepEqual(faults.kinds, ['slow-handlers']);
  assert.equal([...faults.effects()].length, 1);
  faults.receive({ type: 'fault', kind: 'slow-handlers', phase: 'end' });
  assert.equal([...faults.effects()].length, 0);
  faults.receive({ type: 'fault', kind: 'slow-handlers', phase: 'start', args: { extraMs: 1 } });
  const active = [...faults.effects()];
  assert.equal(active.length, 1);
  const held = active[0]!.hold?.();
  assert.ok(held, 'the fault holds the handler');
  await held;
  faults.receive({ type: 'fault', kind: 'slow-handlers', phase: 'end' });
  assert.equal([...faults.effects()].length, 0);
});

test("the harness's worker-side faults: stall holds until its end, handler-errors fails, kill-consumer crashes after apply", async () => {
  const faults = WorkerFaults.consumer(side);
  await faults.loaded;
  for (const k of ['stall', 'handler-errors', 'kill-consumer']) assert.ok(faults.kinds.includes(k), `${k} has a consumer hook`);
  assert.ok(!faults.kinds.includes('network'), 'a fault acting outside workers has no hook');

  faults.receive({ type: 'fault', kind: 'stall', phase: 'start', args: { durationMs: 60_000 } });
  const [stall] = [...faults.effects()] as HandlerEffect[];
  const held = stall!.hold!()!;
  assert.equal(await settledSoon(held), false, 'a stalled handler waits');
  faults.receive({ type: 'fault', kind: 'stall', phase: 'end' });
  assert.equal(await settledSoon(held), true, 'the end of the stall releases it');

  faults.receive({ type: 'fault', kind: 'handler-errors', phase: 'start', args: { settle: 'requeue' } });
  assert.deepEqual([...faults.effects()].map((e) => e.failWith?.()), ['requeue']);
  faults.endAll();
  assert.equal([...faults.effects()].length, 0);

  const offsets: number[] = [];
  const marks: string[] = [];
  const producer = WorkerFaults.producer({
    id: 'p1', log: () => {}, client: { send: async () => ({}), close: async () => {} }, mark: (name) => marks.push(name),
    producer: { name: 'orders', index: 0 }, setClockOffset: (ms) => offsets.push(ms),
  });
  await producer.loaded;
  assert.deepEqual(producer.kinds, ['add-partitions', 'clock-skew', 'isolate']);
  // clock-skew moves the payload clock at its start and puts it back at its end.
  producer.receive({ type: 'fault', kind: 'clock-skew', phase: 'start', args: { offsetMs: -750 } });
  producer.receive({ type: 'fault', kind: 'clock-skew', phase: 'end' });
  assert.deepEqual(offsets, [-750, 0]);
  assert.deepEqual(marks, ['clock-skew', 'clock-skew-end']);
});

test('a concurrency mode in a folder of its own joins the schema and schedules tasks', async () => {
  const extra = await loadConcurrencyModes(FIXTURE('modes'));
  assert.deepEqual(extra.map((m) => m.name), ['newest-first']);
  const all = [...CONCURRENCY_MODES, ...extra];
  const schema = concurrencySchema(all) as { mode: { enum: string[]; default: string; description: string }; stackLimit?: unknown };
  assert.deepEqual(schema.mode.enum, ['partition', 'batch', 'conflate', 'key', 'unordered', 'newest-first']);
  assert.equal(schema.mode.default, 'partition');
  assert.match(schema.mode.description, /newest-first: one at a time, newest first/);
  assert.ok(schema.stackLimit, "the mode's own field is in the schema");

  // Run it: while the first task runs, two more arrive; the newest runs next.
  const mode = concurrencyMode('newest-first', all);
  const s = mode.scheduler(1);
  const order: number[] = [];
  let release!: () => void;
  const first = new Promise<void>((r) => (release = r));
  await s.accept('k', async () => {
    order.push(1);
    await first;
  });
  await new Promise((r) => setImmediate(r));
  await s.accept('k', async () => void order.push(2));
  await s.accept('k', async () => void order.push(3));
  release();
  await s.idle();
  assert.deepEqual(order, [1, 3, 2]);
});

test('the harness finds its modes, default first', () => {
  assert.deepEqual(CONCURRENCY_MODES.map((m) => m.name), ['partition', 'batch', 'conflate', 'key', 'unordered']);
  assert.equal(concurrencyMode('partition').maxInFlight(8), 1);
  assert.equal(concurrencyMode('key').maxInFlight(8), 8);
});

test("a worker loads only the fault kinds its scenario names; a kind is named after its file", async () => {
  assert.deepEqual([...(await faultKinds(undefined, ['stall', 'network'])).keys()], ['network', 'stall']);
  assert.deepEqual([...(await faultKinds(FIXTURE('faults'), ['stall'])).keys()], [], 'a kind the folder does not have');
  const faults = WorkerFaults.consumer(side, undefined, ['stall']);
  await faults.loaded;
  assert.deepEqual(faults.kinds, ['stall']);
  // Every kind of the harness's own folder is named after its file (faultKinds throws otherwise).
  for (const [name, kind] of await faultKinds()) assert.equal(kind.kind, name);
});
