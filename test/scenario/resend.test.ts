/**
 * `workload.producers[].resend`: its defaults, its ranges and where a broker
 * cannot honour it, each refused by `convoy validate` with the path named (exit 2). Real broker
 * modules (the memory broker declares it cannot; Kafka and Pub/Sub can).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { validateFiles } from '../../harness/cli/commands/validate.ts';
import { loadScenarioFile } from '../../harness/scenario/load.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { fixture } from './helpers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const f = (name: string) => fixture(`resend/${name}.yaml`);
const at = 'workload.producers[0].resend';

const BAD: [string, string][] = [
  ['memory', `${at}: memory cannot honour it: the memory broker answers every send in process and has no link a fault could slow: an ack timeout would time the harness's own IPC, and no send ends unknown`],
  ['no-trigger', `${at}: expected ackTimeoutMs or onUnknown: true, got neither (nothing would be re-sent)`],
  ['timeout-zero', `${at}.ackTimeoutMs: expected a duration from 1 ms to 10 min, got 0`],
  ['timeout-too-long', `${at}.ackTimeoutMs: expected a duration from 1 ms to 10 min, got "11m"`],
  ['max-too-high', `${at}.max: expected integer between 1 and 10, got 11`],
  ['max-zero', `${at}.max: expected integer between 1 and 10, got 0`],
  ['typo', `${at}.ackTimoutMs: unknown property (did you mean ackTimeoutMs?)`],
];

for (const [name, problem] of BAD) {
  test(`resend: validate refuses ${name} naming the path`, async () => {
    const lines: string[] = [];
    assert.equal(await validateFiles([f(name)], (l) => lines.push(l), { catalogue: await scenarioCatalogue() }), 2);
    assert.deepEqual(lines.slice(1).map((l) => l.replace(/^ {2}.+?:\d+:\d+: /, '')), [problem]);
  });
}

test('resend: the defaults (onUnknown true, one re-send) and durations in ms', async () => {
  const catalogue = await scenarioCatalogue();
  const kafka = await loadScenarioFile(f('good-kafka'), { catalogue });
  assert.deepEqual(kafka.workload.producers[0].resend, { ackTimeoutMs: 500, onUnknown: true, max: 1 });
  const pubsub = await loadScenarioFile(f('good-pubsub-unknown'), { catalogue });
  assert.deepEqual(pubsub.workload.producers[0].resend, { onUnknown: true, max: 2 });
});

test('resend: the control twin removes the option it extends (resend: null)', async () => {
  const s = await loadScenarioFile(`${ROOT}workloads/nightly/kafka-own-resend-control.yaml`, { catalogue: await scenarioCatalogue(), onWarning: () => {} });
  assert.equal(s.workload.producers[0].resend, undefined);
  const failing = await loadScenarioFile(`${ROOT}workloads/nightly/kafka-own-resend.yaml`, { catalogue: await scenarioCatalogue(), onWarning: () => {} });
  assert.deepEqual(failing.workload.producers[0].resend, { ackTimeoutMs: 2000, onUnknown: true, max: 1 });
});

test('resend: convoy validate exits 2 with one located line per file and no stack trace (the real CLI)', () => {
  const r = spawnSync(process.execPath, ['bin/convoy.js', 'validate', ...BAD.map(([n]) => f(n))], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.doesNotMatch(r.stdout + r.stderr, /^\s+at |internal error/m);
  for (const [name, problem] of BAD) assert.ok(r.stderr.includes(`${f(name)}:`) && r.stderr.includes(problem), `${name}: ${problem}\n${r.stderr}`);
});
