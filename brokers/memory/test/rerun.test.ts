/**
 * A run from a twin (`extends:`) records the resolved scenario and the text of both files, and
 * `convoy rerun` repeats it from the result alone: the scenario files are gone by then.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { convoy } from '../../../test/runner/helpers.ts';

const RESULT_SCHEMA = new URL('../../../results/schema/result.v1.json', import.meta.url).pathname;

const SMOKE = new URL('./scenarios/partitioned-smoke.yaml', import.meta.url).pathname;

interface Recorded {
  scenario: { name: string; consumers: { strategy: string } };
  source: { file: string; files: { path: string; text: string }[] };
  verdict: { status: string };
}

const read = (results: string, runId: string) => JSON.parse(readFileSync(join(results, runId, 'result.json'), 'utf8')) as Recorded;

test('a twin\'s run records its files; rerun needs neither file', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-twin-'));
  const results = join(dir, 'results');
  copyFileSync(SMOKE, join(dir, 'parent.yaml'));
  writeFileSync(join(dir, 'twin.yaml'), 'extends: parent.yaml\nname: memory-twin\nconsumers: { processes: 1 }\n');
  const first = await convoy(['run', join(dir, 'twin.yaml'), '--results', results, '--quiet'], { timeoutMs: 90_000 });
  assert.equal(first.code, 0, first.stderr);
  const [runId] = readdirSync(results);
  const recorded = read(results, runId!);
  // A whole result (every section a run writes) is valid under the published schema.
  const validate = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, validateFormats: false }).compile(JSON.parse(readFileSync(RESULT_SCHEMA, 'utf8')));
  assert.ok(validate(recorded), JSON.stringify(validate.errors));
  assert.equal(recorded.scenario.name, 'memory-twin');
  assert.equal(recorded.scenario.consumers.strategy, 'versioned', 'from the parent');
  assert.deepEqual(recorded.source.files.map((f) => f.path.replace(/.*\//, '')), ['twin.yaml', 'parent.yaml']);
  assert.match(recorded.source.files[1].text, /memory-partitioned-smoke/);

  rmSync(join(dir, 'twin.yaml'));
  rmSync(join(dir, 'parent.yaml'));
  const again = await convoy(['rerun', join(results, runId!), '--results', results, '--quiet'], { timeoutMs: 90_000 });
  assert.equal(again.code, 0, again.stderr);
  const second = readdirSync(results).find((r) => r !== runId)!;
  const rerun = read(results, second);
  assert.deepEqual(rerun.scenario, recorded.scenario);
  assert.deepEqual(rerun.source, recorded.source);
  assert.equal(rerun.verdict.status, 'pass');
});
