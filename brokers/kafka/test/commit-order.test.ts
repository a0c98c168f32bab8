/**
 * Kafka's consumer core (brokers/kafka/consumer-core.ts) commits a settled offset only after
 * the harness's `beforeCommit` made what it covers durable, each time it commits (on the
 * timer, after a settlement, on close). In-process: the core's driver records its commits.
 * Its per-offset delivery counts keep the rule they had with a Map.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Delivery } from '../../../harness/broker/contract.ts';
import fc from 'fast-check';
import { ConsumerCore, DeliveryCounts } from '../consumer-core.ts';
import type { ConsumerSettings } from '../settings.ts';

const settings = (autoCommit: boolean): ConsumerSettings => ({
  sessionTimeoutMs: 30_000,
  heartbeatIntervalMs: 3_000,
  autoCommit,
  autoCommitIntervalMs: 60_000,
  partitionsConsumedConcurrently: 1,
  fromBeginning: true,
  metadataMaxAgeMs: 300_000,
});

for (const autoCommit of [false, true]) {
  test(`autoCommit ${autoCommit}: beforeCommit runs before every offset commit, and the commit covers only what was settled before it`, async () => {
    const steps: string[] = [];
    let settledSoFar = 0;
    const core = new ConsumerCore('t', settings(autoCommit), { id: 'c1', maxInFlight: 1, log: () => {}, beforeCommit: () => steps.push(`durable after ${settledSoFar}`) });
    core.attach({
      seek: () => {},
      commit: async (offsets) => void steps.push(`commit ${offsets.map((o) => `p${o.partition}@${o.offset}`).join(' ')}`),
    });
    core.start(async (d: Delivery) => {
      await d.settle('ack');
      settledSoFar++;
    });
    core.assign([0]);
    for (let offset = 0; offset < 3; offset++) assert.equal(await core.handOut(0, offset, Buffer.from('x')), true);
    await core.flush();
    core.close();
    const commits = steps.filter((s) => s.startsWith('commit'));
    assert.ok(commits.length >= 1, 'something was committed');
    assert.equal(commits.at(-1), 'commit p0@3');
    steps.forEach((s, i) => {
      if (s.startsWith('commit')) assert.match(steps[i - 1] ?? '', /^durable/, `step ${i} (${s}) follows a beforeCommit: ${steps.join(', ')}`);
    });
  });
}

/** Bumps every offset into `counts` and into a Map that forgets its first key, and compares them at each step. */
function matchesReference(counts: DeliveryCounts, limit: number, offsets: number[]): void {
  const reference = new Map<number, number>();
  for (const offset of offsets) {
    const expected = (reference.get(offset) ?? 0) + 1;
    reference.set(offset, expected);
    if (reference.size > limit) reference.delete(reference.keys().next().value!);
    assert.equal(counts.bump(offset), expected, `offset ${offset}`);
    assert.equal(counts.size, reference.size);
  }
}

test('DeliveryCounts remembers the counts of the `limit` offsets first delivered most recently, as a Map that forgets its first key does', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 300 }), (limit, offsets) => {
      matchesReference(new DeliveryCounts(limit), limit, offsets);
    }),
  );
});

test('DeliveryCounts on a partition read in order, with seeks back and gaps: the same counts, past its ring growing and filling', () => {
  // Runs of increasing offsets (gaps: control records, compaction), each after a seek back by up to 150.
  const reads = fc.array(fc.record({ back: fc.integer({ min: 0, max: 150 }), run: fc.integer({ min: 1, max: 120 }), gap: fc.integer({ min: 1, max: 3 }) }), { maxLength: 40 });
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 200 }), reads, (limit, steps) => {
      const offsets: number[] = [];
      let next = 0;
      for (const s of steps) {
        next = Math.max(0, next - s.back);
        for (let i = 0; i < s.run; i++, next += s.gap) offsets.push(next);
      }
      matchesReference(new DeliveryCounts(limit), limit, offsets);
    }),
  );
  // In order only (the usual read): every offset once, 1 each, the size capped at the limit.
  const counts = new DeliveryCounts(1000);
  for (let o = 0; o < 5000; o++) assert.equal(counts.bump(o), 1);
  assert.equal(counts.size, 1000);
  assert.equal(counts.bump(4000), 2); // remembered
  assert.equal(counts.bump(3999), 1); // forgotten: counted afresh
});
