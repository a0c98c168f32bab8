/**
 * Durations wherever a time is set: a broker's `...Ms` settings take "8s" as the scenario's own
 * times do, and a bare number below a second where seconds are plainly meant (a workload that
 * ends before its faults start) is refused with the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenarioFile } from '../../harness/scenario/load.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { durationsInMs } from '../../harness/duration.ts';

const dir = mkdtempSync(join(tmpdir(), 'convoy-durations-'));
async function load(name: string, yaml: string) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, yaml);
  try {
    return await loadScenarioFile(file, { catalogue: await scenarioCatalogue(), onWarning: () => {} });
  } catch (err) {
    // The problems are the error's detail lines: one error carrying them, for assert.rejects.
    throw new Error([(err as Error).message, ...((err as { detail?: string[] }).detail ?? [])].join('\n'));
  }
}

test('broker settings named ...Ms take durations; server properties and other fields stay as written', async () => {
  const s = await load('kafka-durations', [
    'broker: { kind: kafka, client: confluent, producer: { requestTimeoutMs: 8s, retryBackoffMs: 250ms }, consumer: { sessionTimeoutMs: 10s }, brokerConfig: { replica.lag.time.max.ms: 2000 } }',
    'workload: { keys: { count: 5 }, rate: { kind: fixed, perSecond: 10 }, durationMs: 2s }',
    'consumers: { processes: 1 }',
  ].join('\n'));
  const b = s.broker as Record<string, any>;
  assert.equal(b.producer.requestTimeoutMs, 8000);
  assert.equal(b.producer.retryBackoffMs, 250);
  assert.equal(b.consumer.sessionTimeoutMs, 10_000);
  assert.deepEqual(durationsInMs({ brokerConfig: { 'x.ms': '5s' }, aMs: 'soon', list: [{ bMs: '1m' }] }), { brokerConfig: { 'x.ms': '5s' }, aMs: 'soon', list: [{ bMs: 60_000 }] });
  await assert.rejects(
    load('kafka-bad-duration', 'broker: { kind: kafka, producer: { requestTimeoutMs: 8 seconds } }\nworkload: { keys: { count: 5 }, rate: { kind: fixed, perSecond: 10 }, durationMs: 2s }\nconsumers: { processes: 1 }\n'),
    /broker\.producer\.requestTimeoutMs: expected integer/,
  );
});

test('a workload of 20 (ms) that ends before its fault at 5 s is refused: seconds were meant', async () => {
  const body = (duration: string) => [
    'broker: { kind: memory }',
    `workload: { keys: { count: 5 }, rate: { kind: fixed, perSecond: 100 }, durationMs: ${duration} }`,
    'consumers: { processes: 2 }',
    'faults:',
    '  - { name: stall-c1, kind: stall, consumer: c1, atMs: 5s, durationMs: 2s }',
    'expect:',
    '  reorder: { expect: ">0", during: stall-c1 }',
  ].join('\n');
  await assert.rejects(load('short', body('20')), /workload\.durationMs: 20 is 20 ms \(a number is milliseconds\), and the producers stop before fault "stall-c1" at 5 s; write "20s" for seconds/);
  const ok = await load('long', body('20s'));
  assert.equal(ok.workload.durationMs, 20_000);
});

test('a drain cap under the redelivery horizon names the broker setting to lower, and by how much', async () => {
  const { loadScenario } = await import('../../harness/scenario/load.ts');
  const file = join(dir, 'kafka-capped.yaml');
  writeFileSync(file, [
    'broker: { kind: kafka, client: confluent }',
    'workload: { keys: { count: 5 }, rate: { kind: fixed, perSecond: 10 }, durationMs: 4s }',
    'consumers: { processes: 2 }',
    'faults: [{ name: stall-c1, kind: stall, consumer: c1, atMs: 1s, durationMs: 1s }]',
    'run: { drainTimeoutMs: 20s }',
  ].join('\n'));
  const { warnings } = await loadScenario(file, { catalogue: await scenarioCatalogue() });
  assert.ok(warnings.some((w) => /set broker\.consumer\.maxPollIntervalMs to at most 15 s \(the horizon is 300 s, plus 5 s to handle it\)/.test(w)), warnings.join('\n'));
});
