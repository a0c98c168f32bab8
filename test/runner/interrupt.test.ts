// @needs rabbitmq
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convoy, onlyRunDir, readHistory, processesMentioning } from './helpers.ts';
import { listInstances } from '../../harness/runtime/instances.ts';
import { pidAlive } from '../../harness/runtime/process.ts';

const SCENARIO = `
name: interrupted-mid-fault
seed: 5
broker: { kind: rabbitmq, topology: competing }
workload:
  keys: { count: 10 }
  rate: { kind: fixed, perSecond: 100 }
  durationMs: 60s
  warmupMs: 0s
consumers: { processes: 2, handler: { kind: constant, ms: 1 } }
faults:
  - { name: slow-link, kind: network, toxic: latency, attributes: { latency: 200, jitter: 20 }, atMs: 1s, durationMs: 50s }
  - { name: freeze-c1, kind: freeze, consumer: c1, atMs: 1s, durationMs: 50s }
  - { name: stall-c2, kind: stall, consumer: c2, atMs: 1s, durationMs: 50s }
run: { maxDurationMs: 120s }
`;

// The test suite's RabbitMQ when it holds one (bin/test-plan.js); else one started here, and
// stopped at the end.
const heldBefore = listInstances().some((i) => i.record.broker === 'rabbitmq' && i.alive);
after(async () => {
  if (!heldBefore) await convoy(['brokers', 'down', 'rabbitmq']);
});

test('Ctrl-C in the middle of faults: every fault undone, workers stopped, partial history kept, exit 3', async () => {
  // A broker that outlives the run, so its Toxiproxy can be inspected after the run.
  const up = await convoy(['brokers', 'up', 'rabbitmq']);
  assert.equal(up.code, 0, up.stderr);
  const instance = listInstances().find((i) => i.record.broker === 'rabbitmq' && i.alive);
  assert.ok(instance, 'brokers up recorded no live rabbitmq');
  const toxiproxy = `http://127.0.0.1:${(instance.record.data as { toxiproxyPort: number }).toxiproxyPort}`;

  const dir = mkdtempSync(join(tmpdir(), 'convoy-int-'));
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-int-scenario-')), 'scenario.yaml');
  writeFileSync(file, SCENARIO);
  let started = 0;
  let interrupted = false;
  const r = await convoy(['run', file, '--results', dir], {
    timeoutMs: 180_000,
    onStderr: (chunk, child) => {
      started += (chunk.match(/fault \S+ \(\w+\) started/g) ?? []).length;
      if (started >= 3 && !interrupted) {
        interrupted = true;
        // While all three faults are in force: a toxic on the link, c1 stopped, c2 stalled.
        setTimeout(() => child.kill('SIGINT'), 1_000);
      }
    },
  });
  assert.ok(interrupted, `the faults never started:\n${r.stderr}`);
  assert.equal(r.code, 3, r.stderr);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  const runDir = onlyRunDir(dir);

  // The partial history is kept and was checked: the verdict is unknown, never a pass.
  const events = readHistory(runDir);
  assert.ok(events.filter((e) => e.type === 'send').length > 50);
  const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8'));
  assert.equal(result.verdict.status, 'unknown');
  assert.ok(result.verdict.reasons.some((x: string) => /interrupted/.test(x)));
  // The consumers were frozen and stalled: acked messages are still queued. The broker was
  // asked after the workers stopped, and what it holds is unseen, never lost.
  const remaining = events.filter((e) => e.type === 'remaining');
  assert.equal(remaining.length, 1);
  assert.equal(remaining[0].known, true);
  assert.ok((remaining[0].total as number) > 0, JSON.stringify(remaining[0]));
  assert.equal(result.anomalies.lost.count, 0);
  assert.ok(result.anomalies.unseen.count > 0);
  assert.ok(!result.verdict.reasons.some((x: string) => /^lost: expected/.test(x)), result.verdict.reasons.join('; '));
  assert.ok(result.verdict.reasons.some((x: string) => /still on the broker/.test(x)), result.verdict.reasons.join('; '));

  // Every fault that started also ended, and Toxiproxy says the link is clean again.
  for (const name of ['slow-link', 'freeze-c1', 'stall-c2']) {
    assert.ok(events.some((e) => e.type === 'fault' && e.name === name && e.phase === 'start'), `${name} never started`);
    assert.ok(events.some((e) => e.type === 'fault' && e.name === name && e.phase === 'end'), `${name} was never undone`);
  }
  const proxies = (await (await fetch(`${toxiproxy}/proxies`)).json()) as Record<string, { enabled: boolean; toxics: unknown[] }>;
  for (const [name, p] of Object.entries(proxies)) {
    assert.equal(p.enabled, true, `proxy ${name} left disabled`);
    assert.deepEqual(p.toxics, [], `proxy ${name} left with toxics`);
  }

  // No worker is left running or stopped (a frozen consumer would be in state T).
  const pids = events.filter((e) => e.type === 'mark' && e.name === 'worker-started').map((e) => (e.detail as { pid: number }).pid);
  assert.equal(pids.length, 3); // one producer, two consumers
  for (const pid of pids) assert.equal(pidAlive(pid), false, `worker ${pid} is still alive`);
  assert.deepEqual(processesMentioning(runDir), []);
  // The broker from `brokers up` is untouched.
  assert.ok(listInstances().some((i) => i.record.key === instance.record.key && i.alive));
  assert.ok(existsSync(join(runDir, 'run.log')));
});
