/**
 * A run is a list of stages (harness/runner/stages/) over one context: the stages run in order,
 * an inapplicable one is skipped, a failing one stops the run at its name, and every undo
 * registered so far runs in reverse order, the failing stage's own included. The list is
 * written once: every module of the folder is in it, and the architecture's outline follows it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { openRun, type Stage } from '../../harness/runner/context.ts';
import { runStages, STAGES } from '../../harness/runner/run.ts';
import { loadScenarioFile } from '../../harness/scenario/load.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const SCENARIO = join(ROOT, 'brokers/memory/test/scenarios/partitioned-smoke.yaml');

async function context() {
  const scenario = await loadScenarioFile(SCENARIO, { catalogue: await scenarioCatalogue(), target: { runtime: 'local', allowDestructive: false } });
  return openRun(scenario, { runtime: 'local', resultsDir: mkdtempSync(join(tmpdir(), 'convoy-stages-')), keep: false, allowDestructive: false, progress: false });
}

test('stages run in order; a failing one stops the run at its name, and every undo so far runs in reverse', async () => {
  const ctx = await context();
  const seen: string[] = [];
  const stage = (name: string, body: () => void = () => {}, applies?: boolean): Stage => ({
    name,
    ...(applies === undefined ? {} : { applies: () => applies }),
    async run(c) {
      seen.push(`run ${name}`);
      c.defer(name, () => void seen.push(`undo ${name}`));
      body();
    },
  });
  await runStages(ctx, [
    stage('setup'),
    stage('owner', () => {}, false),
    stage('deploy'),
    stage('provision', () => {
      throw new Error('no destinations today');
    }),
    stage('consumers'),
  ]);
  assert.deepEqual(seen, ['run setup', 'run deploy', 'run provision', 'undo provision', 'undo deploy', 'undo setup']);
  assert.equal(ctx.record.failedStage, 'provision');
  assert.deepEqual(ctx.record.incomplete, ['provision: no destinations today']);
  // The run still closed: its processes' histories merged behind the header.
  const history = readFileSync(ctx.record.historyFile, 'utf8').trim().split('\n');
  assert.equal(JSON.parse(history[0]!).type, 'header');
});

test('an undo that fails is logged and the ones before it still run', async () => {
  const ctx = await context();
  const lines: string[] = [];
  const undone: string[] = [];
  (ctx.opts as { log?: (l: string) => void }).log = (l) => lines.push(l);
  await runStages(ctx, [
    { name: 'deploy', run: async (c) => c.defer('stopping brokers', () => void undone.push('deploy')) },
    {
      name: 'provision',
      run: async (c) =>
        c.defer('deleting destinations', () => {
          throw new Error('broker gone');
        }),
    },
  ]);
  assert.deepEqual(undone, ['deploy']);
  assert.ok(lines.includes('deleting destinations: broker gone'), lines.join('\n'));
  assert.equal(ctx.record.failedStage, undefined);
});

test('the stage list is written once: each module of harness/runner/stages/ is in it once, and the outline follows it', () => {
  const names = STAGES.map((s) => s.name);
  assert.equal(new Set(names).size, names.length, `a stage twice: ${names.join(', ')}`);
  const files = readdirSync(join(ROOT, 'harness/runner/stages')).filter((f) => f.endsWith('.ts')).map((f) => f.replace(/\.ts$/, ''));
  assert.deepEqual([...files].sort(), [...names].sort());
  // docs/architecture.md's outline of a run names each stage with its file, in the run's order.
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const outline = [...doc.matchAll(/│\s+([a-z-]+)\s+(?:\(optional\)\s+)?stages\/([a-z-]+)\.ts/g)].map((m) => [m[1], m[2]]);
  assert.deepEqual(outline.map(([n]) => n), names);
  for (const [name, file] of outline) assert.equal(file, name);
});
