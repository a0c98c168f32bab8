/**
 * Each agent's share in the result (harness.agents): its rate is over the sending, as the run's
 * own is, not over the whole run (its drain would count as the producers' idle time: a run at
 * 200/s read as about 110/s).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentShares } from '../../harness/runner/analyze.ts';
import type { RunRecord } from '../../harness/runner/record.ts';

const stats = (acked: number, applied: number) => ({ acked, applied }) as unknown as RunRecord['producerStats'][string];

test('an agent\'s acked rate is over the sending, its counts are its workers\', its CPU their sum', () => {
  const record = {
    startUs: 1_000_000,
    endUs: 6_000_000, // 2.5 s of sending, then a drain
    agents: [
      { agent: 'a:7411', host: 'a', cores: 2, roles: ['producers'], workers: ['p1', 'p2'] },
      { agent: 'b:7411', host: 'b', cores: 2, roles: ['consumers'], workers: ['c1'] },
    ],
    producerStats: { p1: stats(300, 0), p2: stats(200, 0) },
    consumerStats: { c1: stats(0, 500) },
    cpu: { host: { meanPercent: 50, cpus: 2, samples: 3 }, workers: { p1: { meanPercent: 3 }, p2: { meanPercent: 4 }, c1: { meanPercent: 11 } } },
  } as unknown as RunRecord;
  const [a, b] = agentShares(record, 3_500_000);
  assert.deepEqual([a!.acked, a!.applied, a!.ackedPerSecond, a!.cpuMeanPercent], [500, 0, 200, 7]);
  assert.deepEqual([b!.acked, b!.applied, b!.cpuMeanPercent], [0, 500, 11]);
  // Nothing sent: over the whole run.
  assert.equal(agentShares(record, 0)[0]!.ackedPerSecond, 100);
});
