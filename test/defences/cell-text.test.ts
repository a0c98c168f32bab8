import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cellText } from '../../harness/defences/render.ts';
import type { DefenceCell } from '../../harness/defences/table.ts';

const one = (v: number) => ({ median: v, min: v, max: v, n: 1 });
const cost = { storeMsPerMessage: null, messagesPerSecond: null, writesPerMessage: null, heldMessages: null, peakRssMiB: null, readsPerMessage: null, addedLatencyP99Ms: null };
const cell = (keys: number, wrong: number): DefenceCell => ({
  column: 'dlq-redrive', strategy: 'resequencer', fits: true,
  runs: [{ runId: 'r1', seed: 1, verdict: 'fail' }], known: 1,
  keys: one(keys), wrong: one(wrong), wrongShare: keys ? one(wrong / keys) : null, runsWrong: wrong > 0 ? 1 : 0,
  skipped: one(0), rejected: one(0), figures: {}, cost,
});

test('a cell whose runs judged some keys says how many ended wrong', () => {
  assert.match(cellText(cell(20, 0)), /^0\/20 keys \(0%\).*; 0\/1 run wrong$/);
});

test('a cell whose runs reached no final state says no key was judged, never "0 wrong"', () => {
  // The resequencer under dlq-redrive held every key's messages to the end: 0 keys, which read as 0/0 wrong before.
  const text = cellText(cell(0, 0));
  assert.match(text, /^no key judged/);
  assert.doesNotMatch(text, /run wrong/);
});
