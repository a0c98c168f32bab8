import { test } from 'node:test';
import assert from 'node:assert/strict';
import { concurrencyMode } from '../../harness/consumer/concurrency/registry.ts';

/** Feeds messages (key, ms) and records, per message, when its handler started and ended. */
async function drive(mode: string, workers: number, msgs: [string, number][]) {
  const d = concurrencyMode(mode).scheduler(workers);
  const spans: { key: string; i: number; start: number; end: number }[] = [];
  const t0 = Date.now();
  for (let i = 0; i < msgs.length; i++) {
    const [key, ms] = msgs[i];
    await d.accept(key, async () => {
      const start = Date.now() - t0;
      await new Promise((r) => setTimeout(r, ms));
      spans.push({ key, i, start, end: Date.now() - t0 });
    });
  }
  await d.idle();
  return spans;
}

function overlapsPerKey(spans: { key: string; start: number; end: number }[]): number {
  let n = 0;
  for (const a of spans) for (const b of spans) if (a !== b && a.key === b.key && b.start >= a.start && b.start < a.end) n++;
  return n;
}

function completionOrderPerKey(spans: { key: string; i: number }[]): boolean {
  const last = new Map<string, number>();
  for (const s of spans) {
    if ((last.get(s.key) ?? -1) > s.i) return false;
    last.set(s.key, s.i);
  }
  return true;
}

// A slow first message of key a, then fast ones: the case that reorders in a worker pool.
const MSGS: [string, number][] = [['a', 60], ['a', 5], ['b', 5], ['a', 5], ['b', 5], ['c', 30], ['c', 5]];

test('unordered mode runs messages of one key at once and completes them out of order', async () => {
  const spans = await drive('unordered', 4, MSGS);
  assert.equal(spans.length, MSGS.length);
  assert.ok(overlapsPerKey(spans) > 0, 'expected overlapping handlers for one key');
  assert.equal(completionOrderPerKey(spans), false);
});

test('key mode never overlaps a key and keeps per-key order, while keys run in parallel', async () => {
  const spans = await drive('key', 4, MSGS);
  assert.equal(spans.length, MSGS.length);
  assert.equal(overlapsPerKey(spans), 0);
  assert.ok(completionOrderPerKey(spans));
  // b's messages did not wait behind a's slow first message.
  const bEnd = Math.max(...spans.filter((s) => s.key === 'b').map((s) => s.end));
  const aFirstEnd = spans.find((s) => s.key === 'a' && s.i === 0)!.end;
  assert.ok(bEnd < aFirstEnd, `b finished at ${bEnd} ms, after a's first at ${aFirstEnd} ms`);
});

test('key mode holds at most `workers` handlers at once', async () => {
  const d = concurrencyMode('key').scheduler(2);
  let running = 0;
  let peak = 0;
  for (let i = 0; i < 12; i++) {
    await d.accept(`k${i}`, async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 10));
      running--;
    });
  }
  await d.idle();
  assert.equal(peak, 2);
});

test('partition mode runs one at a time in arrival order', async () => {
  const spans = await drive('partition', 4, MSGS);
  assert.deepEqual(spans.map((s) => s.i), MSGS.map((_, i) => i));
  assert.equal(overlapsPerKey(spans), 0);
});
