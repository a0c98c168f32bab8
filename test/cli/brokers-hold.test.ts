/**
 * `convoy brokers hold`: brokers for other runs to reuse while the command runs, stopped when it
 * ends. The test suite holds its shared brokers this way (bin/run-tests.js). Here on ElasticMQ,
 * the quickest to start, with the records in a folder of the test's own (CONVOY_INSTANCES).
 */
// @needs own sqs beside
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONVOY, ROOT } from '../runner/helpers.ts';
import { pidAlive } from '../../harness/runtime/process.ts';
import sqs from '../../brokers/sqs/index.ts';
import { resolveSettings } from '../../brokers/sqs/settings.ts';
import type { SqsDeployment } from '../../brokers/sqs/local.ts';

interface Held {
  child: ChildProcess;
  out: () => string;
  dir: string;
}

/** Starts `convoy brokers hold sqs` and waits for it to say it holds the broker. */
async function hold(): Promise<Held> {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-hold-'));
  const child = spawn(process.execPath, [CONVOY, 'brokers', 'hold', 'sqs'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, CONVOY_INSTANCES: dir } });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 90_000;
  while (!/^holding sqs-elasticmq/m.test(out)) {
    assert.ok(child.exitCode === null, `brokers hold exited ${child.exitCode}: ${out}`);
    assert.ok(Date.now() < deadline, `brokers hold said nothing in 90 s: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, out: () => out, dir };
}

/** The pids of the record the holder wrote (one JSON file in its folder). */
function recordedPids(dir: string): number[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.equal(files.length, 1, `records: ${files.join(', ')}`);
  return (JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as { pids: number[] }).pids;
}

async function gone(pids: number[], ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (pids.some((p) => pidAlive(p))) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

test('a held broker is reused by a deploy that looks in its folder, and stops when the holder\'s input closes', { timeout: 180_000 }, async () => {
  const h = await hold();
  const pids = recordedPids(h.dir);
  assert.ok(pids.length > 0 && pids.every((p) => pidAlive(p)), `recorded pids ${pids} are not all running`);
  // A deploy with reuse in another process finds it (as a test's run does).
  const before = process.env.CONVOY_INSTANCES;
  process.env.CONVOY_INSTANCES = h.dir;
  try {
    const dep = (await sqs.deploy({ runtime: 'local', workDir: mkdtempSync(join(tmpdir(), 'convoy-hold-reuse-')), cacheDir: '', log: () => {}, reuse: true }, resolveSettings({ kind: 'sqs' }))) as SqsDeployment;
    assert.equal(dep.reused, true);
    await dep.stop();
    assert.ok(pids.every((p) => pidAlive(p)), 'a reusing deployment\'s stop() leaves the held broker running');
  } finally {
    if (before === undefined) delete process.env.CONVOY_INSTANCES;
    else process.env.CONVOY_INSTANCES = before;
  }
  h.child.stdin!.end();
  const [code] = await once(h.child, 'exit');
  assert.equal(code, 0, h.out());
  assert.match(h.out(), /^sqs-elasticmq-[\d.]+: stopped$/m);
  assert.ok(await gone(pids, 10_000), `still running after the holder ended: ${pids.filter((p) => pidAlive(p))}`);
  assert.deepEqual(readdirSync(h.dir).filter((f) => f.endsWith('.json')), [], 'the record is removed');
});

test('a holder killed with SIGKILL leaves nothing running: its reaper stops the broker', { timeout: 180_000 }, async () => {
  const h = await hold();
  const pids = recordedPids(h.dir);
  h.child.kill('SIGKILL');
  await once(h.child, 'exit');
  assert.ok(await gone(pids, 20_000), `still running 20 s after the holder was killed: ${pids.filter((p) => pidAlive(p))}`);
});
