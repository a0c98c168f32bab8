import { test } from 'node:test';
import assert from 'node:assert/strict';
import { skewReport } from '../../harness/workload/skew.ts';
import { MessagePlan } from '../../harness/workload/schedule.ts';
import { hash32 } from '../../harness/workload/rng.ts';

test('top 1, top 10, top 1% and lanes from counts', () => {
  const counts = new Map<string, number>([['k0', 700]]);
  for (let i = 1; i <= 300; i++) counts.set(`k${i}`, 1);
  const lanes = [...counts].map(([key, count]) => ({ key, lane: key === 'k0' ? 'orders-0' : `orders-${(Number(key.slice(1)) % 3)}`, count }));
  const r = skewReport(counts, { laneCounts: lanes, configuredKeys: 1000 });
  assert.equal(r.messages, 1000);
  assert.equal(r.keysSeen, 301);
  assert.equal(r.keys, 1000);
  assert.deepEqual(r.top1, { key: 'k0', share: 0.7 });
  assert.equal(r.top10.share, 0.709);
  assert.deepEqual(r.top1Percent, { keys: 10, share: 0.709 });
  assert.deepEqual(r.lanes.map((l) => [l.lane, l.messages, l.keys, l.topKey]), [
    ['orders-0', 800, 101, 'k0'],
    ['orders-1', 100, 100, 'k1'],
    ['orders-2', 100, 100, 'k2'],
  ]);
  assert.equal(r.lanes[0].share, 0.8);
  assert.equal(r.lanes[0].topKeyShare, 700 / 800);
});

test('rank series: head and tail, downsampled, cumulative reaches 1', () => {
  const counts = new Map<string, number>();
  for (let i = 0; i < 5000; i++) counts.set(`k${i}`, 5000 - i);
  const r = skewReport(counts, { points: 30 });
  assert.ok(r.series.length <= 30);
  assert.deepEqual(r.series.slice(0, 10).map((p) => p.rank), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.equal(r.series.at(-1)?.rank, 5000);
  assert.ok(Math.abs(r.series.at(-1)!.cumulative - 1) < 1e-12);
  for (let i = 1; i < r.series.length; i++) {
    assert.ok(r.series[i].rank > r.series[i - 1].rank);
    assert.ok(r.series[i].share <= r.series[i - 1].share);
  }
  assert.deepEqual(skewReport(new Map()).series, []);
});

test('a hotspot plan realises its skew: 70% on one key puts ~85% on one of 3 lanes', () => {
  const plan = new MessagePlan({
    seed: 11,
    workload: {
      keys: { count: 1000, distribution: { kind: 'hotspot', hotKeys: 1, share: 0.7 }, prefix: 'k' },
      rate: { kind: 'fixed', perSecond: 1000 },
      size: { kind: 'fixed', bytes: 100 },
      durationMs: 20_000,
      warmupMs: 0,
      producers: [{ name: 'p', processes: 1, sharedKeys: false }],
    },
  });
  const counts = new Map<string, number>();
  for (const m of plan.messages()) counts.set(m.key, (counts.get(m.key) ?? 0) + 1);
  const lane = (key: string) => `t-${hash32(key) % 3}`;
  const r = skewReport(counts, { laneCounts: [...counts].map(([key, count]) => ({ key, lane: lane(key), count })), configuredKeys: 1000 });
  assert.ok(Math.abs(r.top1.share - 0.7) < 0.01, `top1 ${r.top1.share}`);
  assert.equal(r.top1.key, 'k0');
  const hotLane = r.lanes.find((l) => l.lane === lane('k0'))!;
  assert.ok(Math.abs(hotLane.share - 0.8) < 0.02, `hot lane ${hotLane.share}`);
});
