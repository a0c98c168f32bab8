/** Progress output: plain lines off a terminal show rates, backlog and the anomalies so far. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Progress, type ProgressState } from '../../harness/runner/progress.ts';

function capture(fn: () => void): string {
  const original = process.stderr.write.bind(process.stderr);
  let out = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    fn();
  } finally {
    process.stderr.write = original;
  }
  return out;
}

const state: ProgressState = { phase: 'produce', elapsedS: 12.4, totalS: 30, sentRate: 999.6, processedRate: 870.2, backlog: 41, errors: 2, stale: 17 };

test('a plain progress line names the phase, rates, backlog and the anomalies so far', () => {
  const out = capture(() => new Progress('kafka-demo', false).update(state));
  assert.equal(out, 'kafka-demo produce 12s/30s sent 1000/s processed 870/s backlog 41 anomalies so far: 17 stale, 2 errors\n');
});

test('plain lines are written at most every 5 s, and not at all when disabled', () => {
  const p = new Progress('x', false);
  const out = capture(() => {
    p.update(state);
    p.update({ ...state, stale: 18 });
  });
  assert.equal(out.split('\n').filter(Boolean).length, 1);
  assert.equal(capture(() => new Progress('x', false, false).update(state)), '');
});
