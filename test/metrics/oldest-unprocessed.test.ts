import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { oldestUnprocessed } from '../../harness/metrics/oldest-unprocessed.ts';

test('oldest unprocessed age per key: pending from send to first apply, per second, acked messages only', async () => {
  const s = 1_000_000;
  const ev = [
    { type: 'send', key: 'hot', producer: 'p', seq: 1, at: 0.5 * s },
    { type: 'ack', key: 'hot', producer: 'p', seq: 1, at: 0.6 * s, ok: true },
    { type: 'process', key: 'hot', producer: 'p', seq: 1, consumer: 'c1', received: 2.4 * s, start: 2.4 * s, end: 2.5 * s, outcome: 'ok' },
    { type: 'send', key: 'hot', producer: 'p', seq: 2, at: 1.2 * s },
    { type: 'ack', key: 'hot', producer: 'p', seq: 2, at: 1.3 * s, ok: true },
    // seq 2 is never applied: still pending at the end.
    { type: 'send', key: 'hot', producer: 'p', seq: 3, at: 1.5 * s },
    { type: 'ack', key: 'hot', producer: 'p', seq: 3, at: 1.6 * s, ok: false },
    { type: 'send', key: 'cold', producer: 'p', seq: 1, at: 0.1 * s },
  ];
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-oldest-')), 'h.jsonl');
  writeFileSync(file, ev.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const r = await oldestUnprocessed(file, ['hot'], 0, s, 4);
  // End of second 1: seq 1 pending 500 ms. End of 2: seq 1 pending 1500 ms. End of 3 and 4:
  // seq 1 applied; seq 2 pending 1800 and 2800 ms. seq 3 definitely failed: not counted.
  assert.deepEqual(r.hot, [500, 1500, 1800, 2800]);
  assert.deepEqual(Object.keys(r), ['hot']);
});
