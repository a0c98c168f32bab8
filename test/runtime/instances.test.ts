/**
 * Recorded brokers and who may reuse them. A broker a suite started is that suite's: the suite
 * stops it when it ends, so no other process (a second suite, a run beside it) may adopt it.
 * Regression: a run adopted another suite's Kafka, which that suite then stopped mid-run, and
 * the run ended unknown.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Put back after: the other files of this folder run in the same process (bin/run-tests.js).
const cacheBefore = process.env.CONVOY_CACHE;
process.env.CONVOY_CACHE = mkdtempSync(join(tmpdir(), 'convoy-instances-'));
const instancesBefore = process.env.CONVOY_INSTANCES;
delete process.env.CONVOY_INSTANCES;
const { listInstances, loadInstance, markStartedBySuite, removeInstance, reusableHere, saveInstance } = await import(
  '../../harness/runtime/instances.ts'
);

let broker: ChildProcess;
before(() => {
  broker = spawn('sleep', ['60'], { stdio: 'ignore' });
});
after(() => {
  broker.kill('SIGKILL');
  if (cacheBefore === undefined) delete process.env.CONVOY_CACHE;
  else process.env.CONVOY_CACHE = cacheBefore;
  if (instancesBefore !== undefined) process.env.CONVOY_INSTANCES = instancesBefore;
});

const record = (key: string, ownerPid?: number) => ({
  key,
  broker: 'fake',
  pids: [broker.pid!],
  pidFiles: [] as string[],
  data: {},
  startedAt: new Date().toISOString(),
  ...(ownerPid ? { startedBy: 'suite' as const, ownerPid } : {}),
});

test('a broker from `brokers up` is shared: any process reuses it', () => {
  saveInstance(record('shared-1'));
  const rec = loadInstance('shared-1');
  assert.equal(rec?.key, 'shared-1');
  assert.equal(reusableHere(rec!), true);
  removeInstance('shared-1');
  assert.equal(loadInstance('shared-1'), undefined);
});

test("a suite's broker is reused by that suite's process only", () => {
  saveInstance(record('suite-1'));
  markStartedBySuite('suite-1');
  const own = loadInstance('suite-1');
  assert.equal(own?.ownerPid, process.pid);
  assert.equal(own?.startedBy, 'suite');
  // The shared record is gone: a process that looks for a shared one finds none.
  assert.deepEqual(readdirSync(join(process.env.CONVOY_CACHE!, 'instances')).filter((f) => f.startsWith('suite-1')), [`suite-1.suite-${process.pid}.json`]);
  removeInstance('suite-1');
  assert.equal(loadInstance('suite-1'), undefined);
});

test("another suite's broker is not adopted, though it is listed (status, clean)", () => {
  const otherSuite = process.pid + 100_000;
  saveInstance(record('suite-2', otherSuite));
  assert.equal(loadInstance('suite-2'), undefined, 'another suite would stop it under this run');
  const listed = listInstances().find((i) => i.record.key === 'suite-2');
  assert.equal(listed?.alive, true);
  assert.equal(reusableHere(listed!.record), false);
  // Marking it as this suite's own is refused: it stays the other suite's.
  markStartedBySuite('suite-2');
  assert.equal(loadInstance('suite-2'), undefined);
  removeInstance(listed!.record);
  assert.equal(listInstances().some((i) => i.record.key === 'suite-2'), false);
});
