/**
 * Options given more than once (`--external`, `--set`) take one value per flag, so a scenario
 * or matrix file after them is the command's argument, not one more value; and a connection
 * setting of digits stays text (a user name, a project id).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseExternal } from '../../harness/cli/connection.ts';
import { convoy } from '../runner/helpers.ts';

test('--external values stay text except true and false, nested by their dotted keys', () => {
  assert.deepEqual(parseExternal(['bootstrap=b:9092', 'sasl.username=12345', 'sasl.password=007', 'ssl=true']), {
    bootstrap: 'b:9092',
    sasl: { username: '12345', password: '007' },
    ssl: true,
  });
});

test('a file after --external or --set is the command argument (each flag takes one value)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-repeatable-'));
  const file = join(dir, 'mem.yaml');
  writeFileSync(file, 'broker: { kind: memory }\nworkload: { keys: { count: 2 }, rate: { kind: fixed, perSecond: 10 }, durationMs: 1s }\nconsumers: { processes: 1 }\n');
  const run = await convoy(['run', '--runtime', 'external', '--external', 'bootstrap=127.0.0.1:9', '--external', 'sasl.username=12345', file, '--results', dir, '--quiet'], { timeoutMs: 60_000 });
  assert.doesNotMatch(run.stderr, /missing required argument/);
  // The scenario was read: the memory broker refuses the external runtime, as bad input
  // (exit 2, one line at broker.kind) before any run folder is made, not at deploy (exit 3).
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /mem\.yaml:1:11: broker\.kind: the memory broker runs only on the local runtime, not external/);
  assert.deepEqual(readdirSync(dir), ['mem.yaml'], 'no run folder');
  const validate = await convoy(['validate', '--runtime', 'containers', file], { timeoutMs: 60_000 });
  assert.equal(validate.code, 2);
  assert.match(validate.stderr, /mem\.yaml:1:11: broker\.kind: the memory broker runs only on the local runtime, not containers/);
  const matrix = await convoy(['matrix', '--set', 'workload.durationMs=2s', '--set', 'workload.keys.count=3', 'workloads/matrix/kafka-client-x-concurrency.yaml', '--dry-run'], { timeoutMs: 60_000 });
  assert.equal(matrix.code, 0, matrix.stderr + matrix.stdout);
});
