/**
 * The hot-key defences among the concurrency modes, on their own: conflate drops what queued
 * behind a key's running message except the newest; batch hands a key's queued messages to
 * the consumer together, up to batchMax, lingering for the batch to fill.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { concurrencyMode } from '../../harness/consumer/concurrency/registry.ts';
import type { Handling, Task } from '../../harness/consumer/concurrency/contract.ts';

/** A handling that records what the mode asked of it, tasks named by `names`. */
function recorder(names: Map<Task, string>) {
  const log: string[] = [];
  const handling: Handling = {
    async drop(tasks, newer) {
      log.push(`drop ${tasks.map((t) => names.get(t)).join(',')} for ${names.get(newer)}`);
    },
    async together(tasks) {
      log.push(`together ${tasks.map((t) => names.get(t)).join(',')}`);
    },
  };
  return { log, handling };
}

function tasks(log: string[], names: Map<Task, string>, ...ids: string[]): Task[] {
  return ids.map((id) => {
    const t: Task = async () => {
      log.push(`run ${id}`);
      if (id.endsWith('slow')) await new Promise((r) => setTimeout(r, 40));
    };
    names.set(t, id);
    return t;
  });
}

test('conflate: what queued behind a running message is dropped but the newest, which runs; other keys are untouched', async () => {
  const names = new Map<Task, string>();
  const { log, handling } = recorder(names);
  const mode = concurrencyMode('conflate');
  const s = mode.scheduler(2, { settings: { mode: 'conflate', workers: 2 }, handling });
  const [a1, a2, a3, a4, b1] = tasks(log, names, 'a1-slow', 'a2', 'a3', 'a4', 'b1');
  for (const [k, t] of [['a', a1], ['a', a2], ['a', a3], ['a', a4], ['b', b1]] as const) await s.accept(k, t!);
  await s.idle();
  assert.equal(s.inFlight, 0);
  assert.deepEqual(log.filter((l) => !l.includes('b1')), ['run a1-slow', 'drop a2,a3 for a4', 'run a4']);
  assert.ok(log.includes('run b1'));
  assert.equal(mode.maxInFlight(2, { mode: 'conflate', workers: 2, queue: 64 }), 64, 'the queue field sets what the client may hand out');
});

test('batch: a key\'s queued messages go together, at most batchMax at a time, in arrival order', async () => {
  const names = new Map<Task, string>();
  const { log, handling } = recorder(names);
  const s = concurrencyMode('batch').scheduler(1, { settings: { mode: 'batch', workers: 1, batchMax: 2 }, handling });
  const ts = tasks(log, names, 'a1-slow', 'a2', 'a3', 'a4');
  for (const t of ts) await s.accept('a', t);
  await s.idle();
  assert.deepEqual(log, ['run a1-slow', 'together a2,a3', 'run a4']);
});

test('batch: with a linger the first message waits for the batch to fill', async () => {
  const names = new Map<Task, string>();
  const { log, handling } = recorder(names);
  const s = concurrencyMode('batch').scheduler(1, { settings: { mode: 'batch', workers: 1, batchMax: 3, batchLingerMs: 200 }, handling });
  const [a1, a2, a3] = tasks(log, names, 'a1', 'a2', 'a3');
  await s.accept('a', a1!);
  await new Promise((r) => setTimeout(r, 20));
  await s.accept('a', a2!);
  await s.accept('a', a3!);
  await s.idle();
  // Without the linger a1 would have run alone at once.
  assert.deepEqual(log, ['together a1,a2,a3']);
});

test('conflate and batch refuse to run without the consumer\'s handling', () => {
  for (const name of ['conflate', 'batch']) assert.throws(() => concurrencyMode(name).scheduler(1), /needs the consumer's handling/);
});
