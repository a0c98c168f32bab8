/**
 * A machine that lacks what a broker needs, as a user meets it: `convoy doctor` says what is
 * missing and how to get it (exit 3); a run says so in one line, with no stack trace, and still
 * leaves a result (`unknown`, the stage, the reason) that the suite's dashboard and JUnit show.
 * RabbitMQ is made missing by pointing convoy at an empty bin folder; CONVOY_NO_INSTALL=1 keeps
 * a root run from installing it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { CONVOY, ROOT } from '../runner/helpers.ts';

const validateResult = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, validateFormats: false }).compile(
  JSON.parse(readFileSync(join(ROOT, 'results', 'schema', 'result.v1.json'), 'utf8')) as object,
);

const MISSING_RABBITMQ = { CONVOY_RABBITMQ_BIN_DIR: '/nonexistent/rabbitmq/bin', CONVOY_NO_INSTALL: '1' };

function convoy(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CONVOY, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: 'true', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const t = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

const SCENARIO = `name: rabbitmq-needs-its-server
broker: { kind: rabbitmq, topology: competing }
workload:
  keys: { count: 5 }
  rate: { kind: fixed, perSecond: 50 }
  durationMs: 2s
consumers: { processes: 1, handler: { kind: constant, ms: 1 }, strategy: naive }
`;

/** A stack trace line as Node prints it. */
const STACK_LINE = /^\s+at .+[(:]\d+/m;

describe('a machine without RabbitMQ', () => {
  test('doctor names what is missing, who needs it and how to get it, and exits 3', async () => {
    const r = await convoy(['doctor'], MISSING_RABBITMQ);
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(r.stdout, /MISSING rabbitmq-server\s+missing \(needs 3\.10\+\)/);
    assert.match(r.stdout, /needed by broker rabbitmq: to run RabbitMQ locally/);
    assert.match(r.stdout, /get it: apt-get install -y rabbitmq-server/);
    assert.match(r.stdout, /^cache: .+ \((\d+ MiB|[\d.]+ GiB|size unknown); move it with CONVOY_CACHE\)$/m);
    assert.match(r.stdout, /librdkafka client \(optional\)/);
    // The Node it runs on, first: the one these tests run on (./convoy chose it).
    assert.equal(r.stdout.split('\n')[0], `node ${process.version} (ABI ${process.versions.modules})  ${process.execPath}`);
    assert.match(r.stdout.split('\n')[1]!, /^ {2}chosen: (CONVOY_NODE|the machine's node|fetched from the npm registry)/);
    const json = await convoy(['doctor', '--json'], MISSING_RABBITMQ);
    const report = JSON.parse(json.stdout) as { ready: boolean; requirements: { requirement: { name: string }; ok: boolean; essential: boolean }[] };
    assert.equal(report.ready, false);
    assert.equal((report as unknown as { node: { version: string } }).node.version, process.version);
    const rmq = report.requirements.find((q) => q.requirement.name === 'rabbitmq-server');
    assert.deepEqual([rmq?.ok, rmq?.essential], [false, true]);
  });

  test('a run says what is missing in one line with the fix, without a stack trace, and leaves an unknown result', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'convoy-missing-'));
    writeFileSync(join(dir, 'scenario.yaml'), SCENARIO);
    const results = join(dir, 'results');
    const r = await convoy(['run', join(dir, 'scenario.yaml'), '--results', results], MISSING_RABBITMQ);
    assert.equal(r.code, 3, r.stdout + r.stderr);
    const all = r.stdout + r.stderr;
    assert.doesNotMatch(all, STACK_LINE);
    assert.match(all, /rabbitmq-server: missing \(needed by broker rabbitmq: to run RabbitMQ locally\)|rabbitmq-server \(missing\); fix: as root: apt-get update && apt-get install -y rabbitmq-server/);
    const [runId] = readdirSync(results);
    const result = JSON.parse(readFileSync(join(results, runId!, 'result.json'), 'utf8')) as {
      verdict: { status: string; reasons: string[] };
      harness: { failure: { stage: string; reason: string } | null };
    };
    assert.ok(validateResult(result), JSON.stringify(validateResult.errors));
    assert.equal(result.verdict.status, 'unknown');
    assert.equal(result.harness.failure?.stage, 'setup');
    assert.match(result.harness.failure!.reason, /apt-get install -y rabbitmq-server/);
    assert.ok(result.verdict.reasons.some((x) => x.startsWith('setup: ')), result.verdict.reasons.join('; '));
    // The stack is kept in the run's log for whoever needs it.
    assert.match(readFileSync(join(results, runId!, 'run.log'), 'utf8'), STACK_LINE);
  });

  test('the suite\'s dashboard and JUnit show the run that could not start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'convoy-missing-suite-'));
    const suite = join(dir, 'suite');
    mkdirSync(suite);
    writeFileSync(join(suite, 'rabbitmq.yaml'), SCENARIO);
    const out = join(dir, 'out');
    const r = await convoy(['suite', suite, '--out', out, '--quiet'], MISSING_RABBITMQ);
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, STACK_LINE);
    assert.match(r.stdout, /rabbitmq-needs-its-server\s+unknown/);
    const junit = readFileSync(join(out, 'dashboard', 'junit.xml'), 'utf8');
    assert.match(junit, /<testsuite name="rabbitmq-needs-its-server"/);
    assert.match(junit, /verdict unknown: setup: /);
    const index = readFileSync(join(out, 'dashboard', 'index.html'), 'utf8');
    assert.match(index, /rabbitmq-needs-its-server/);
  });
});

describe('a registry that cannot be reached', () => {
  test('setup says which download failed and what to check, in one line, and exits 3', async () => {
    // An empty cache and module cache, and no Go module proxy: building Toxiproxy must fail.
    const dir = mkdtempSync(join(tmpdir(), 'convoy-offline-'));
    const r = await convoy(['setup', '--broker', 'servicebus'], {
      CONVOY_CACHE: join(dir, 'cache'), GOMODCACHE: join(dir, 'gomod'), GOPROXY: 'off', GOFLAGS: '-modcacherw', CONVOY_NO_INSTALL: '1',
    });
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, STACK_LINE);
    assert.match(r.stderr, /^convoy: building toxiproxy failed \(is the Go module proxy reachable\? see GOPROXY\); see the lines below$/m);
    assert.match(r.stderr, /GOPROXY=off/);
  });
});
