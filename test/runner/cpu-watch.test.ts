/** The harness watching its own CPU: figures per worker and host, and a CPU-bound producer makes the verdict unknown. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuWatch } from '../../harness/runner/cpu-watch.ts';
import { analyzeRun } from '../../harness/runner/analyze.ts';
import { hostCpuMeter } from '../../harness/runtime/host-cpu.ts';
import { cpuMeter } from '../../harness/workers/cpu-meter.ts';
import { simulate } from '../report/fixture/make-example.ts';

test('CpuWatch keeps the mean and the peak per worker', () => {
  const w = new CpuWatch();
  w.sample([{ id: 'p-1', stats: { cpuPercent: 40 } }, { id: 'c1', stats: { cpuPercent: 10 } }]);
  w.sample([{ id: 'p-1', stats: { cpuPercent: 100 } }]);
  const f = w.figures();
  assert.deepEqual(f.workers['p-1'], { meanPercent: 70, peakPercent: 100, samples: 2 });
  assert.deepEqual(f.workers.c1, { meanPercent: 10, peakPercent: 10, samples: 1 });
  assert.equal(f.host.samples, 2);
  assert.ok(f.host.meanPercent >= 0 && f.host.meanPercent <= 100);
});

test('the meters see a busy loop', () => {
  const own = cpuMeter();
  const host = hostCpuMeter();
  const until = performance.now() + 300;
  while (performance.now() < until) Math.sqrt(Math.random());
  // On a shared host this process may get only part of a core; it still used some.
  assert.ok(own() > 5);
  assert.ok(host() > 0);
});

async function verdictWith(producerCpu: number) {
  const { events, record } = simulate();
  const dir = mkdtempSync(join(tmpdir(), 'convoy-cpu-'));
  const historyFile = join(dir, 'history.jsonl');
  writeFileSync(historyFile, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  record.cpu!.workers['p-orders-1'] = { meanPercent: producerCpu, peakPercent: 100, samples: 20 };
  const result = await analyzeRun({ ...record, runDir: dir, historyFile, storeFile: join(dir, 'state.sqlite') });
  return result.verdict;
}

test('a producer that used a whole core while sending makes the verdict unknown', async () => {
  const busy = await verdictWith(98);
  assert.equal(busy.status, 'unknown');
  assert.ok(busy.reasons.some((r) => /producer p-orders-1 was CPU-bound: 98% of a core/.test(r)), busy.reasons.join('; '));
  const calm = await verdictWith(60);
  assert.notEqual(calm.status, 'unknown');
  assert.ok(!calm.reasons.some((r) => /CPU-bound/.test(r)));
});
