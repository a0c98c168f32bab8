import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newHistogram, percentileCurve, record, summarize } from '../../harness/metrics/histogram.ts';

test('no percentile is reported above the largest value recorded', () => {
  // 17,044 µs sits in a bucket whose upper edge is 17,055 µs: HDR's own answer for p99.99.
  const h = newHistogram();
  for (let i = 0; i < 5000; i++) record(h, 1000 + (i % 7000));
  record(h, 17_044);
  const s = summarize(h);
  assert.equal(s.max, 17_044);
  assert.ok(h.getValueAtPercentile(99.99) > 17_044, 'the case this guards: HDR alone answers above the max');
  for (const k of ['p50', 'p90', 'p99', 'p999', 'p9999'] as const) assert.ok(s[k] <= s.max, `${k} ${s[k]} <= max ${s.max}`);
  assert.equal(s.p9999, 17_044);
  for (const pt of percentileCurve(h)) assert.ok(pt.us <= s.max);
});

test('an empty histogram summarizes to zeros', () => {
  const s = summarize(newHistogram());
  assert.deepEqual([s.count, s.p99, s.p9999, s.max], [0, 0, 0, 0]);
});
