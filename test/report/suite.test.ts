/**
 * The suite: every scenario of a folder in turn; one that does not load is reported and
 * counted, the others still run; the worst outcome is the exit code; the dashboard and CI
 * files cover the suite. Runs are faked here (no broker); the CLI test uses the real loader.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { EXIT, InfraError, InputError } from '../../harness/errors.ts';
import type { Result } from '../../harness/runner/analyze.ts';
import type { Scenario } from '../../harness/spec/types.ts';
import { runSuite, type SuiteDeps, type SuiteOptions } from '../../harness/suite/run-suite.ts';
import { worstExitCode } from '../../harness/suite/exit-code.ts';
import { parseShard, shardOf } from '../../harness/suite/shard.ts';
import { reportAfterRun } from '../../harness/report/render.ts';
import { exampleScenario } from './fixture/make-example.ts';
import { exampleDir, exampleResult, passingRun } from './fixture/variants.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** A suite folder with the given scenario files (and a file that is not a scenario). */
function folder(dir: string, names: string[]): string {
  const f = join(dir, 'suite');
  mkdirSync(f, { recursive: true });
  for (const n of names) writeFileSync(join(f, n), `name: ${n}\n`);
  writeFileSync(join(f, 'notes.txt'), 'not a scenario');
  return f;
}

/** Fake deps: file name -> behaviour. Runs write result.json like the runner does. */
function fakeDeps(outcomes: Record<string, 'bad-yaml' | 'pass' | 'fail' | 'broken'>, calls: string[]): SuiteDeps {
  const results: Record<string, () => Result> = { pass: () => passingRun() as Result, fail: () => exampleResult() as Result };
  return {
    async load(file) {
      const name = basename(file);
      calls.push(`load ${name}`);
      if (outcomes[name] === 'bad-yaml') throw new InputError(`${file}: invalid scenario (1 problem)`, ['workload.rate: missing']);
      return { ...exampleScenario, name: name.replace(/\.ya?ml$/, '') } as Scenario;
    },
    async run(scenario, opts) {
      calls.push(`run ${scenario.name}`);
      const what = outcomes[`${scenario.name}.yaml`];
      if (what === 'broken') throw new InfraError('rabbitmq would not start at amqps://svc:hunter2@mq:5671/', ['see brokers/rabbitmq.log']);
      const result = results[what]();
      result.runId = `${scenario.name}-20261130-020000-0000`;
      (result.scenario as Record<string, unknown>).name = scenario.name;
      const runDir = join(opts.resultsDir, result.runId);
      mkdirSync(runDir, { recursive: true });
      writeFileSync(join(runDir, 'result.json'), JSON.stringify(result));
      await opts.afterRun?.(result, runDir);
      return { result, runDir, code: what === 'pass' ? EXIT.ok : EXIT.expectationFailed };
    },
    report: reportAfterRun,
    log: () => {},
    async prepare(s) {
      calls.push(`prepare ${s.name}`);
    },
    async finish() {
      calls.push('finish');
    },
  };
}

describe('suite', () => {
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'convoy-suite-'));
    await exampleDir();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the worst outcome wins: broken run 3, unloadable scenario 2, failed expectation 1', () => {
    assert.equal(worstExitCode([]), EXIT.ok);
    assert.equal(worstExitCode([EXIT.ok, EXIT.expectationFailed]), EXIT.expectationFailed);
    assert.equal(worstExitCode([EXIT.expectationFailed, EXIT.badInput, EXIT.ok]), EXIT.badInput);
    assert.equal(worstExitCode([EXIT.infrastructure, EXIT.badInput, EXIT.expectationFailed]), EXIT.infrastructure);
  });

  test('a scenario that does not load is reported and counted; the others still run; CI files cover the suite', async () => {
    const sub = join(dir, 'one');
    const f = folder(sub, ['a.yaml', 'b.yml', 'c.yaml']);
    const calls: string[] = [];
    const opts: SuiteOptions = { folder: f, outDir: join(sub, 'out'), runtime: 'local', allowDestructive: false, keep: false, quiet: true };
    const outcome = await runSuite(opts, fakeDeps({ 'a.yaml': 'pass', 'b.yml': 'bad-yaml', 'c.yaml': 'fail' }, calls));
    assert.equal(outcome.code, EXIT.badInput);
    assert.deepEqual(calls, ['load a.yaml', 'load b.yml', 'load c.yaml', 'prepare a', 'run a', 'prepare c', 'run c', 'finish']);
    assert.deepEqual(outcome.scenarios.map((s) => [s.entry.scenario, s.code]), [['a', EXIT.ok], ['b.yml', EXIT.badInput], ['c', EXIT.expectationFailed]]);
    assert.match(outcome.scenarios[1].entry.error!, /workload\.rate: missing/);
    const junit = readFileSync(join(sub, 'out', 'dashboard', 'junit.xml'), 'utf8');
    assert.match(junit, /<testsuites name="convoy" tests="\d+" failures="1" errors="1"/);
    assert.match(junit, /<testsuite name="b\.yml" tests="1" failures="0" errors="1"[^>]*>\s*<testcase classname="convoy\.b\.yml" name="load"/);
    const index = readFileSync(join(sub, 'out', 'dashboard', 'index.html'), 'utf8');
    for (const id of ['a-20261130-020000-0000', 'c-20261130-020000-0000']) {
      assert.ok(index.includes(`data-run="${id}"`), `index lists ${id}`);
      assert.ok(existsSync(join(sub, 'out', id, 'report.html')), `report of ${id}`);
    }
  });

  test('shards: every scenario runs in exactly one shard, the longest spread first; a scenario that does not load is reported by the first shard only', async () => {
    const names = ['a.yaml', 'b.yaml', 'c.yaml', 'd.yaml', 'e.yaml', 'bad.yaml'];
    const f = folder(join(dir, 'shards'), names);
    const outcomes = Object.fromEntries(names.map((n) => [n, n === 'bad.yaml' ? 'bad-yaml' : 'pass'])) as Record<string, 'bad-yaml' | 'pass'>;
    const ran: string[][] = [];
    const codes: number[] = [];
    for (const index of [1, 2, 3]) {
      const calls: string[] = [];
      const out = join(dir, 'shards', `out-${index}`);
      const outcome = await runSuite({ folder: f, outDir: out, runtime: 'local', allowDestructive: false, keep: false, quiet: true, shard: { index, count: 3 } }, fakeDeps(outcomes, calls));
      ran.push(calls.filter((c) => c.startsWith('run ')).map((c) => c.slice(4)));
      codes.push(outcome.code);
      assert.equal(calls.filter((c) => c.startsWith('load ')).length, names.length, 'each shard loads every scenario');
    }
    assert.deepEqual(ran.flat().sort(), ['a', 'b', 'c', 'd', 'e']);
    assert.ok(ran.every((r) => r.length >= 1 && r.length <= 2), JSON.stringify(ran));
    assert.deepEqual(codes, [EXIT.badInput, EXIT.ok, EXIT.ok]);
    // Weights decide: one long scenario has a shard of its own.
    assert.deepEqual(shardOf(['long', 'x', 'y', 'z'], (n) => (n === 'long' ? 100 : 10), { index: 1, count: 2 }), ['long']);
    assert.deepEqual(shardOf(['long', 'x', 'y', 'z'], (n) => (n === 'long' ? 100 : 10), { index: 2, count: 2 }), ['x', 'y', 'z']);
    assert.deepEqual(parseShard(' 2/6 '), { index: 2, count: 6 });
    for (const bad of ['0/3', '4/3', '2', 'a/b', '1/0']) assert.throws(() => parseShard(bad), (e: Error) => e instanceof InputError && /expected <i>\/<n> with 1 <= i <= n/.test(e.message), bad);
  });

  test('a broken run is exit 3 and an <error>, and does not stop the suite', async () => {
    const sub = join(dir, 'two');
    const f = folder(sub, ['a.yaml', 'b.yaml']);
    const calls: string[] = [];
    const outcome = await runSuite(
      { folder: f, outDir: join(sub, 'out'), runtime: 'local', allowDestructive: false, keep: false, quiet: true },
      fakeDeps({ 'a.yaml': 'broken', 'b.yaml': 'pass' }, calls),
    );
    assert.equal(outcome.code, EXIT.infrastructure);
    assert.ok(calls.includes('run b'));
    const junit = readFileSync(join(sub, 'out', 'dashboard', 'junit.xml'), 'utf8');
    assert.match(junit, /<testsuites name="convoy" tests="\d+" failures="0" errors="1"/);
    assert.match(junit, /name="run"[^>]*>\s*<error type="infrastructure" message="rabbitmq would not start/);
    // The error quoted its connection: the suite's files and outcome show no password.
    assert.ok(!junit.includes('hunter2'));
    assert.match(outcome.scenarios[0].entry.error!, /amqps:\/\/svc:\*\*\*@mq/);
    const bench = JSON.parse(readFileSync(join(sub, 'out', 'dashboard', 'benchmark-latency.json'), 'utf8')) as { name: string }[];
    assert.deepEqual([...new Set(bench.map((b) => b.name.split(' ')[0]))], ['b']);
  });

  test('convoy suite over a folder with an invalid scenario reports it and exits non-zero (real loader, no broker)', () => {
    const sub = join(dir, 'cli');
    const f = join(sub, 'suite');
    mkdirSync(f, { recursive: true });
    writeFileSync(join(f, 'typo.yaml'), 'name: typo\nbroker: { kind: rabbitmq }\nworkload:\n  rate: { kind: fixed, perSecond: 10 }\n  durationMs: 1s\n  bogus: 1\n');
    const out = join(sub, 'out');
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/convoy.js'), 'suite', f, '--results', out, '--quiet'], { encoding: 'utf8', timeout: 40_000 });
    assert.equal(r.status, EXIT.badInput, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /typo\.yaml: not run: the scenario did not load/);
    assert.match(r.stderr, /workload\.bogus/);
    assert.match(r.stdout, /typo\.yaml\s+not loaded/);
    const junit = readFileSync(join(out, 'dashboard', 'junit.xml'), 'utf8');
    assert.match(junit, /errors="1"/);
    assert.match(junit, /<testcase classname="convoy\.typo\.yaml" name="load"/);
  });
});
