/**
 * Bad `workload.gateway` input is refused by `convoy validate` with the path named,
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
const FIXED = '{ kind: fixed, perSecond: 100 }';
/** A scenario file: the broker, the workload's own fields (and its rate), and any faults. */
const scenario = (name: string, broker: string, workload: string, more: { rate?: string; faults?: string } = {}): string => {
  const file = join(dir, `${name}.yaml`);
  const lines = [`broker: ${broker}`, `workload: { keys: { count: 10 }, rate: ${more.rate ?? FIXED}, durationMs: 5s, ${workload} }`];
  if (more.faults) lines.push(`faults: ${more.faults}`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
};
const KAFKA = '{ kind: kafka, topic: { partitions: 3 } }';

/** A kill-relay fault for this relay. */
const killRelay = (relay: string) => ({ faults: `[ { name: k, kind: kill-relay, relay: ${relay}, atMs: 1s } ]` });

const BAD: [string, string, string, RegExp, { rate?: string; faults?: string }?][] = [
  ['with-producers', KAFKA, 'gateway: { mode: direct }, producers: [ { name: orders } ]', /workload\.gateway: expected either gateway or producers, got both/],
  // Keys are the lanes: accepted with relays (the shipped sqs-gateway-outbox), refused without, naming the fix.
  ['outbox-on-sqs', '{ kind: sqs }', 'gateway: { mode: outbox }', /workload\.gateway\.mode: outbox runs one relay per lane, and sqs's settings fix no lanes to count them by; set workload\.gateway\.relays/],
  ['unknown-mode', KAFKA, 'gateway: { mode: sharded }', /workload\.gateway\.mode/],
  ['connections-zero', KAFKA, 'gateway: { mode: direct, connections: 0 }', /workload\.gateway\.connections/],
  ['connections-over-rate', KAFKA, 'gateway: { mode: direct, connections: 200 }', /workload\.gateway\.connections: expected at most workload\.rate\.perSecond \(100\), got 200/],
  ['timeout-too-long', KAFKA, 'gateway: { mode: direct, timeoutS: 600 }', /workload\.gateway\.timeoutS/],
  ['relays-not-outbox', KAFKA, 'gateway: { mode: locked, relays: 2 }', /workload\.gateway\.relays: only the outbox mode has relays/],
  // kill-relay without an outbox, and for a relay the lanes do not give.
  ['kill-relay-direct', KAFKA, 'gateway: { mode: direct }', /faults\[0\]: kill-relay needs an order service with an outbox/, killRelay('relay-1')],
  ['kill-relay-4', KAFKA, 'gateway: { mode: outbox }', /faults\[0\]\.relay: no relay "relay-4" in this scenario; expected one of relay-1, relay-2, relay-3 \(one per lane\)/, killRelay('relay-4')],
  // autocannon holds one overall rate.
  ['steps-rate', KAFKA, 'gateway: { mode: direct }', /workload\.rate\.kind: expected fixed with workload\.gateway/, { rate: '{ kind: steps, steps: [ { perSecond: 100, forMs: 5s } ] }' }],
];

/**
 * One `convoy validate` over every bad file: it reports each file's problems under the file's
 * own path (`invalid <file>`, then `<file>:line:col: <problem>`), so each test below reads its
 * file's lines only. A CLI start per file cost half a second of CPU each.
 */
let all: ReturnType<typeof convoy> | undefined;
const files = new Map(BAD.map(([name, broker, workload, , more]) => [name, scenario(name, broker, workload, more)]));
const validateAll = () => (all ??= convoy(['validate', ...files.values()], { timeoutMs: 60_000 }));

for (const [name, , , message] of BAD) {
  test(`convoy validate refuses ${name} with its path (exit 2)`, async () => {
    const r = await validateAll();
    const out = r.stdout + r.stderr;
    assert.equal(r.code, 2, out);
    const file = files.get(name)!;
    const own = out.split('\n').filter((l) => l.includes(file));
    assert.ok(own.some((l) => l.startsWith(`invalid ${file}:`)), `${name} refused:\n${out}`);
    assert.match(own.join('\n'), message);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  });
}

// The outbox on brokers whose keys are the lanes, with relays set: accepted (one CLI start for all).
const KEYED_OUTBOX = ['sqs-gateway-outbox', 'servicebus-gateway-outbox', 'pubsub-gateway-outbox-link-down'].map((n) => `workloads/nightly/${n}.yaml`);

test('the shipped producer-side scenarios and the outbox with relays on keyed lanes validate', async () => {
  const r = await convoy(['validate', 'workloads/producer-side', ...KEYED_OUTBOX], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  for (const f of KEYED_OUTBOX) assert.match(r.stdout + r.stderr, new RegExp(`ok ${f}`));
});
