import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { register, validateFiles } from '../../harness/cli/commands/validate.ts';
import { fixture, options } from './helpers.ts';
import { fileURLToPath } from 'node:url';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scenarioFiles } from '../../harness/suite/discover.ts';
import { KAFKA_CLIENTS } from '../../brokers/kafka/client-defaults.ts';

test('validateFiles: an ok line per good file, the problems of a bad one, exit code 2 when any is bad', async () => {
  const lines: string[] = [];
  const code = await validateFiles([fixture('full.yaml'), fixture('minimal.yaml'), fixture('too-long.yaml')], (l) => lines.push(l), options);
  assert.equal(code, 0);
  assert.deepEqual(lines, [
    `ok ${fixture('full.yaml')}: hot-key-stall (broker fake, 20 s or 50000 messages, 2 faults)`,
    `ok ${fixture('minimal.yaml')}: minimal (broker fake, 10 s, 0 faults)`,
    `ok ${fixture('too-long.yaml')}: too-long (broker fake, 85 s, 0 faults)`,
    '  warning: planned duration 97 s (warm-up 2 s + sending 85 s + drain up to the redelivery horizon 10 s) is over the nightly limit of 90 s; set run.maxDurationMs to allow more',
  ]);
  lines.length = 0;
  const bad = await validateFiles([fixture('unknown-property.yaml'), fixture('minimal.yaml')], (l) => lines.push(l), options);
  assert.equal(bad, 2);
  assert.deepEqual(lines, [
    `invalid ${fixture('unknown-property.yaml')}: invalid scenario (1 problem)`,
    `  ${fixture('unknown-property.yaml')}:3:24: workload.rate.perSecnd: unknown property (did you mean perSecond?)`,
    `ok ${fixture('minimal.yaml')}: minimal (broker fake, 10 s, 0 faults)`,
  ]);
});

test('convoy validate <file...> sets exit code 2 on an invalid file', async () => {
  const program = new Command('convoy').exitOverride();
  const printed: string[] = [];
  register(program, (line) => printed.push(line + '\n'));
  const before = process.exitCode;
  try {
    await program.parseAsync(['validate', fixture('bad-yaml.yaml')], { from: 'user' });
    assert.equal(process.exitCode, 2);
  } finally {
    process.exitCode = before;
  }
  assert.match(printed.join(''), /^invalid .*bad-yaml\.yaml: not valid YAML\n  .*bad-yaml\.yaml:4:3: YAML syntax error: /);
});

test('convoy validate <folder> checks the scenarios a suite of that folder would run', async () => {
  const program = new Command('convoy').exitOverride();
  const printed: string[] = [];
  register(program, (line) => printed.push(line));
  const folder = fileURLToPath(new URL('../../workloads/demo/', import.meta.url));
  const before = process.exitCode;
  try {
    await program.parseAsync(['validate', folder], { from: 'user' });
    assert.equal(process.exitCode, before);
  } finally {
    process.exitCode = before;
  }
  const ok = printed.filter((l) => l.startsWith('ok '));
  assert.deepEqual(ok.map((l) => l.split(':')[0]!.replace(/^ok .*\//, '')), scenarioFiles(folder).map((f) => f.replace(/^.*\//, '')));
  assert.ok(ok.length > 0);
});

test('convoy validate knows a matrix file (its cells checked as matrix --dry-run does) and walks a folder and the folders below it', async () => {
  const program = new Command('convoy').exitOverride();
  const printed: string[] = [];
  register(program, (line) => printed.push(line));
  const matrices = fileURLToPath(new URL('../../workloads/matrix/', import.meta.url));
  const tree = mkdtempSync(join(tmpdir(), 'convoy-validate-tree-'));
  mkdirSync(join(tree, 'below', 'deeper'), { recursive: true });
  writeFileSync(join(tree, 'below', 'deeper', 'deep.yaml'), 'broker: { kind: memory }\nworkload: { keys: { count: 2 }, rate: { kind: fixed, perSecond: 10 }, durationMs: 1s }\nconsumers: { processes: 1 }\n');
  const before = process.exitCode;
  try {
    await program.parseAsync(['validate', matrices, tree], { from: 'user' });
    assert.equal(process.exitCode, before, printed.join('\n'));
  } finally {
    process.exitCode = before;
  }
  const ok = printed.filter((l) => l.startsWith('ok '));
  const cells = KAFKA_CLIENTS.length * 3;
  assert.ok(ok.some((l) => new RegExp(`kafka-client-x-concurrency\\.yaml: matrix kafka-client-x-concurrency, ${cells} cells x 5 repeats = ${cells * 5} runs`).test(l)), printed.join('\n'));
  assert.ok(ok.some((l) => /below\/deeper\/deep\.yaml: deep \(broker memory/.test(l)), printed.join('\n'));
  // Every matrix file of the project, and the one scenario below.
  assert.equal(ok.length, readdirSync(matrices).filter((f) => f.endsWith('.yaml')).length + 1, printed.join('\n'));
});
