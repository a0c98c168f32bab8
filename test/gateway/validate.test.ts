/**
 * Bad `workload.gateway` input (issue 23) is refused by `convoy validate` with the path named,
 * exit 2: gateway beside producers, a mode the broker cannot serve, autocannon options out of
 * range. And a good one passes, so the refusals are not of everything.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convoy } from '../runner/helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'convoy-gateway-validate-'));
const scenario = (name: string, broker: string, workload: string): string => {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, [`broker: ${broker}`, `workload: { keys: { count: 10 }, rate: { kind: fixed, perSecond: 100 }, durationMs: 5s, ${workload} }`].join('\n') + '\n');
  return file;
};
const KAFKA = '{ kind: kafka, topic: { partitions: 3 } }';

const BAD: [string, string, string, RegExp][] = [
  ['with-producers', KAFKA, 'gateway: { mode: direct }, producers: [ { name: orders } ]', /workload\.gateway: expected either gateway or producers, got both/],
  ['outbox-on-sqs', '{ kind: sqs }', 'gateway: { mode: outbox }', /workload\.gateway\.mode: outbox runs one relay per lane, and sqs's settings fix no lanes/],
  ['unknown-mode', KAFKA, 'gateway: { mode: sharded }', /workload\.gateway\.mode/],
  ['connections-zero', KAFKA, 'gateway: { mode: direct, connections: 0 }', /workload\.gateway\.connections/],
  ['connections-over-rate', KAFKA, 'gateway: { mode: direct, connections: 200 }', /workload\.gateway\.connections: expected at most workload\.rate\.perSecond \(100\), got 200/],
  ['timeout-too-long', KAFKA, 'gateway: { mode: direct, timeoutS: 600 }', /workload\.gateway\.timeoutS/],
  ['relays-not-outbox', KAFKA, 'gateway: { mode: locked, relays: 2 }', /workload\.gateway\.relays: only the outbox mode has relays/],
];

for (const [name, broker, workload, message] of BAD) {
  test(`convoy validate refuses ${name} with its path (exit 2)`, async () => {
    const r = await convoy(['validate', scenario(name, broker, workload)], { timeoutMs: 60_000 });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, message);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  });
}

test('kill-relay is refused without an outbox, and for a relay the lanes do not give', async () => {
  const write = (name: string, mode: string, relay: string) => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, `broker: ${KAFKA}\nworkload: { keys: { count: 10 }, rate: { kind: fixed, perSecond: 100 }, durationMs: 5s, gateway: { mode: ${mode} } }\nfaults: [ { name: k, kind: kill-relay, relay: ${relay}, atMs: 1s } ]\n`);
    return file;
  };
  const noOutbox = await convoy(['validate', write('kill-relay-direct', 'direct', 'relay-1')], { timeoutMs: 60_000 });
  assert.equal(noOutbox.code, 2, noOutbox.stdout + noOutbox.stderr);
  assert.match(noOutbox.stdout + noOutbox.stderr, /faults\[0\]: kill-relay needs an order service with an outbox/);
  const noSuchRelay = await convoy(['validate', write('kill-relay-4', 'outbox', 'relay-4')], { timeoutMs: 60_000 });
  assert.equal(noSuchRelay.code, 2, noSuchRelay.stdout + noSuchRelay.stderr);
  assert.match(noSuchRelay.stdout + noSuchRelay.stderr, /faults\[0\]\.relay: no relay "relay-4" in this scenario; expected one of relay-1, relay-2, relay-3 \(one per lane\)/);
});

test('a steps rate is refused with workload.gateway: autocannon holds one overall rate', async () => {
  const file = join(dir, 'steps.yaml');
  writeFileSync(file, `broker: ${KAFKA}\nworkload: { keys: { count: 10 }, rate: { kind: steps, steps: [ { perSecond: 100, forMs: 5s } ] }, durationMs: 5s, gateway: { mode: direct } }\n`);
  const r = await convoy(['validate', file], { timeoutMs: 60_000 });
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stdout + r.stderr, /workload\.rate\.kind: expected fixed with workload\.gateway/);
});

test('the shipped producer-side scenarios validate', async () => {
  const r = await convoy(['validate', 'workloads/producer-side'], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stdout + r.stderr);
});
