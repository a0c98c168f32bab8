/**
 * Worker processes reused across memory-broker runs (harness/workers/pool.ts): a worker whose run
 * left nothing alive (harness/workers/open-handles.ts) takes the next run, and that run is the run
 * a fresh process would have made; a worker a fault froze is never reused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { leftovers, processSnapshot, processWide, reportLeftovers } from '../../harness/workers/open-handles.ts';
import { idleWorkers } from '../../harness/workers/pool.ts';
import { pidAlive } from '../../harness/runtime/process.ts';
import { runHere } from '../../brokers/memory/test/run-here.ts';

const SMOKE = new URL('../../brokers/memory/test/scenarios/partitioned-smoke.yaml', import.meta.url).pathname;

test('leftovers: timers, open files and process listeners a run left; nothing once they are gone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-leftovers-'));
  const before = processSnapshot();
  assert.deepEqual(await leftovers(before), []);
  const timer = setInterval(() => {}, 1_000);
  const fd = openSync(join(dir, 'history.jsonl'), 'a');
  const listener = () => {};
  process.on('message', listener);
  const once = () => {};
  process.on('disconnect', once);
  processWide(once);
  let links = 1;
  reportLeftovers(() => (links > 0 ? [`${links} open broker link(s)`] : []));
  const found = (await leftovers(before, 1)).join('; ');
  assert.match(found, /an active Timeout/);
  assert.match(found, /open .*history\.jsonl/);
  assert.match(found, /1 'message' listener\(s\) on process/);
  assert.match(found, /1 open broker link\(s\)/);
  assert.doesNotMatch(found, /'disconnect'/, 'a process-wide listener is no leftover');
  clearInterval(timer);
  closeSync(fd);
  process.off('message', listener);
  process.off('disconnect', once);
  links = 0;
  assert.deepEqual(await leftovers(before), []);
});

/** The run's worker pids (its worker-started marks) and what its producers sent and its consumers applied. */
function runFacts(runDir: string) {
  const events = readFileSync(join(runDir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  return {
    pids: events.filter((e) => e.name === 'worker-started').map((e) => (e.detail as { pid: number }).pid),
    sent: events.filter((e) => e.type === 'send').map((e) => `${e.producer}/${e.key}/${e.seq}`).sort(),
    applied: [...new Set(events.filter((e) => e.type === 'process' && e.outcome === 'ok').map((e) => `${e.key}/${e.seq}`))].sort(),
  };
}

test('a reused worker makes the run a fresh one makes: same messages, same handling, same verdict', { timeout: 180_000 }, async () => {
  process.env.CONVOY_WORKER_REUSE = '0';
  const fresh = await runHere(SMOKE).finally(() => delete process.env.CONVOY_WORKER_REUSE);
  const waiting = (pids: number[]) => pids.filter((p) => idleWorkers().includes(p));
  assert.deepEqual(waiting(runFacts(fresh.runDir).pids), [], 'with CONVOY_WORKER_REUSE=0 no worker waits for another run');
  const first = await runHere(SMOKE);
  const started = runFacts(first.runDir).pids;
  assert.deepEqual(waiting(started), started, 'every worker of a clean run waits for the next');
  const idleBefore = idleWorkers();
  const again = await runHere(SMOKE);
  const reused = runFacts(again.runDir).pids;
  assert.equal(reused.length, started.length);
  assert.deepEqual(reused.filter((p) => idleBefore.includes(p)), reused, 'the next run got waiting processes only');
  const facts = [fresh, first, again].map((r) => runFacts(r.runDir));
  for (const [i, r] of [fresh, first, again].entries()) {
    assert.equal(r.result.verdict.status, 'pass', JSON.stringify(r.result.verdict));
    assert.ok(facts[i]!.applied.length > 0);
    assert.deepEqual(facts[i]!.sent, facts[0]!.sent, 'the same messages sent');
    assert.deepEqual(facts[i]!.applied, facts[0]!.applied, 'the same messages applied');
    assert.deepEqual(r.result.anomalies, fresh.result.anomalies);
  }
});

test('a worker a fault froze is not reused; its run\'s other workers are', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-reuse-freeze-'));
  const file = join(dir, 'freeze.yaml');
  writeFileSync(file, readFileSync(SMOKE, 'utf8')
    .replace('name: memory-partitioned-smoke', 'name: memory-freeze-reuse')
    .replace(/expect:[\s\S]*$/, 'faults:\n  - { name: freeze-c1, kind: freeze, consumer: c1, atMs: 200ms, durationMs: 300ms }\nexpect: { reorder: any, duplicate: any, wrong-state: any }\n'));
  const { runDir } = await runHere(file);
  const events = readFileSync(join(runDir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { name?: string; detail?: { id: string; pid: number } });
  const frozen = events.find((e) => e.name === 'worker-started' && e.detail!.id === 'c1')!.detail!.pid;
  const others = events.filter((e) => e.name === 'worker-started' && e.detail!.id !== 'c1').map((e) => e.detail!.pid);
  const deadline = Date.now() + 10_000;
  while (pidAlive(frozen) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(pidAlive(frozen), false, 'the frozen worker exited after its run');
  assert.ok(others.every(pidAlive), 'the other workers wait for another run');
});
