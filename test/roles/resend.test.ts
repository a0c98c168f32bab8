/**
 * The producer's own re-sends (workload.producers[].resend) without a broker:
 * when the policy fires, the result's figures, and what re-sends do to the run's measurements
 * (not schedule sends, not publish delay; a message refused only when every send of it was).
 * The real-broker side: brokers/kafka/test/own-resend.test.ts and brokers/pubsub/test/own-resend.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResendPolicy } from '../../harness/roles/resend.ts';
import { resendFigures } from '../../harness/metrics/resends.ts';
import { measureHistory } from '../../harness/runner/measure.ts';
import { loadScenarioFile } from '../../harness/scenario/load.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { fixture } from '../scenario/helpers.ts';

const spec = (over: { ackTimeoutMs?: number; onUnknown?: boolean; max?: number }) => ({ onUnknown: true, max: 1, ...over });
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('ResendPolicy: an unknown outcome re-sends once; an ack or a definite refusal does not; no policy, no watch', () => {
  let fired = 0;
  const p = new ResendPolicy(spec({}));
  p.watch(0, () => fired++)!.answered('unknown');
  assert.equal(fired, 1);
  p.watch(0, () => fired++)!.answered('ok');
  p.watch(0, () => fired++)!.answered('refused');
  assert.equal(fired, 1);
  assert.equal(new ResendPolicy(spec({ onUnknown: false, ackTimeoutMs: 60_000 })).watch(0, () => fired++)!.answered('unknown'), undefined);
  assert.equal(fired, 1, 'onUnknown false: an unknown outcome is left alone');
  assert.equal(new ResendPolicy(undefined).watch(0, () => fired++), undefined);
});

test('ResendPolicy: max counts re-sends per message; the last allowed re-send is not watched', () => {
  const p = new ResendPolicy(spec({ max: 2 }));
  assert.ok(p.watch(0, () => {}));
  assert.ok(p.watch(1, () => {}));
  assert.equal(p.watch(2, () => {}), undefined);
});

test('ResendPolicy: the ack timer re-sends a pending send once, and its later unknown outcome does not re-send it again', async () => {
  let fired = 0;
  const p = new ResendPolicy(spec({ ackTimeoutMs: 1 }));
  const w = p.watch(0, () => fired++)!;
  await tick(30);
  assert.equal(fired, 1);
  w.answered('unknown');
  assert.equal(fired, 1);
  // Answered in time: the timer is cleared.
  p.watch(0, () => fired++)!.answered('ok');
  await tick(30);
  assert.equal(fired, 1);
  // A stopped producer re-sends nothing.
  p.stop();
  p.watch(0, () => fired++)!.answered('unknown');
  assert.equal(fired, 1);
});

// A history: k1 seq 1 acked late and re-sent (the copy written); k1 seq 2 unknown, its re-send
// refused (a paused key); k2 seq 1 re-sent twice, one copy unanswered and one unknown.
const send = (key: string, seq: number, at: number, resend?: number) => ({ type: 'send', key, producer: 'p', seq, at, intended: resend ? 1_000 * seq : at, process: 'p-1', size: 100, ...(resend ? { resend } : {}) });
const ack = (key: string, seq: number, at: number, ok: boolean | null, sent: number, error?: string) => ({ type: 'ack', key, producer: 'p', seq, at, ok, sent, ...(error ? { error } : {}) });
const HISTORY = [
  send('k1', 1, 1_000),
  send('k1', 2, 2_000),
  send('k1', 1, 501_000, 1),
  ack('k1', 1, 1_600_000, true, 1_000),
  ack('k1', 1, 1_700_000, true, 501_000),
  ack('k1', 2, 1_800_000, null, 2_000, 'timed out'),
  send('k1', 2, 1_800_001, 1),
  ack('k1', 2, 1_800_002, false, 1_800_001, 'key paused: not sent'),
  send('k2', 1, 3_000),
  send('k2', 1, 503_000, 1),
  send('k2', 1, 1_003_000, 2),
  ack('k2', 1, 1_900_000, null, 503_000, 'timed out'),
  ack('k2', 1, 2_000_000, true, 3_000),
];

function historyFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-resend-')), 'history.jsonl');
  writeFileSync(file, HISTORY.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return file;
}

test('resendFigures: each re-send with the answer to it (matched by the send time the ack names)', async () => {
  assert.deepEqual(await resendFigures(historyFile()), {
    resent: 4,
    messages: 3,
    acked: 1,
    refused: 1,
    unknown: 1,
    unanswered: 1,
    refusals: [{ error: 'key paused: not sent', count: 1 }],
  });
});

test('measureHistory: re-sends are neither schedule sends nor publish delay, and a refused re-send does not make its message refused', async () => {
  const scenario = await loadScenarioFile(fixture('resend/good-kafka.yaml'), { catalogue: await scenarioCatalogue(), onWarning: () => {} });
  const m = await measureHistory(historyFile(), scenario, 0, []);
  assert.equal(m.sent, 3, 'three messages planned and sent; four re-sends beside them');
  const delay = (m.latency as { whole: Record<string, { count: number; max: number }> }).whole.publishDelay;
  assert.deepEqual([delay.count, delay.max], [3, 0], 'every first send went at its intended time; the re-sends went late by design');
  // k1 seq 2: its first send ended unknown and only its re-send was refused: it may be written.
  assert.equal(m.truth.get('k1')?.version, 2);
});
