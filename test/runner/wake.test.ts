/**
 * The produce loop wakes when a producer says it finished (harness/runner/wake.ts), not at its
 * next 500 ms poll; and it leaves no listener behind on the workers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sleepUntilFinished } from '../../harness/runner/wake.ts';
import type { WorkerHandle } from '../../harness/workers/handle.ts';
import { emptyStats, type FromWorker } from '../../harness/workers/protocol.ts';

/** The part of a worker handle the wake reads: its stats, its exit, its messages. */
function fakeWorker(finished = false) {
  const listeners = new Set<(m: FromWorker) => void>();
  const w = {
    stats: { ...emptyStats(), finished },
    exited: false,
    listeners,
    onMessage(l: (m: FromWorker) => void) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    emit(m: FromWorker) {
      if (m.type === 'stats') w.stats = m.stats;
      for (const l of [...listeners]) l(m);
    },
  };
  return w;
}

test('a producer that reports finished wakes the sleep long before its end; one already finished, or a stats message without finished, does not', { timeout: 30_000 }, async () => {
  const done = fakeWorker(true);
  const sending = fakeWorker();
  const signal = new AbortController().signal;
  let woke = false;
  const sleeping = sleepUntilFinished([done, sending] as unknown as WorkerHandle[], 600_000, signal).then(() => (woke = true));
  done.emit({ type: 'stats', stats: { ...emptyStats(), finished: true } });
  sending.emit({ type: 'stats', stats: { ...emptyStats(), sent: 10 } });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(woke, false, 'woken by a worker that had finished before, or by progress alone');
  sending.emit({ type: 'stats', stats: { ...emptyStats(), sent: 20, finished: true } });
  await sleeping; // a ten-minute sleep: the test's timeout fails it if the message did not wake it
  assert.equal(sending.listeners.size + done.listeners.size, 0, 'listeners removed');
});

test('an abort ends the sleep, and its listeners go', async () => {
  const sending = fakeWorker();
  const abort = new AbortController();
  const sleeping = sleepUntilFinished([sending] as unknown as WorkerHandle[], 600_000, abort.signal);
  assert.equal(sending.listeners.size, 1);
  abort.abort();
  await sleeping;
  assert.equal(sending.listeners.size, 0);
});
