/**
 * The bench's producer rate, counted as the producer perf tool counts its own: acknowledged
 * messages over the time from the first send to the last acknowledgement, from the history.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ackedRate } from '../../bench/acked-rate.ts';

test('acknowledged messages from the first send to the last ack; failed acks do not count', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-acked-rate-'));
  try {
    const file = join(dir, 'history.jsonl');
    const ev = (o: Record<string, unknown>) => JSON.stringify(o);
    writeFileSync(file, [
      ev({ type: 'header', format: 'convoy.history', version: 1 }),
      ev({ type: 'send', key: 'k', producer: 'p', seq: 1, at: 1_000_000 }),
      ev({ type: 'send', key: 'k', producer: 'p', seq: 2, at: 1_100_000 }),
      ev({ type: 'send', key: 'k', producer: 'p', seq: 3, at: 1_200_000 }),
      ev({ type: 'ack', key: 'k', producer: 'p', seq: 1, at: 1_300_000, ok: true }),
      ev({ type: 'ack', key: 'k', producer: 'p', seq: 2, at: 1_400_000, ok: false }),
      ev({ type: 'ack', key: 'k', producer: 'p', seq: 3, at: 1_500_000, ok: true }),
      ev({ type: 'process', key: 'k', producer: 'p', seq: 1, end: 9_000_000 }),
      '',
    ].join('\n'));
    assert.deepEqual(await ackedRate(file), { messages: 2, seconds: 0.5, rate: 4 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
