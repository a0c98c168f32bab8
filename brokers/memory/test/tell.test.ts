/**
 * A consumer's settlements and hand-over notices cross the worker's stream one way
 * (PeerLink.tell): the runner sends no reply for them, which halves the messages they cost,
 * and the run still ends with every message processed once. Counted in the workers of a real
 * run (fixtures/count-broker-messages.cjs, preloaded through CONVOY_WORKER_NODE_ARGS).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runHere } from './run-here.ts';

interface Counts {
  calls: Record<string, number>;
  tells: Record<string, number>;
  replies: number;
}

test('settlements and hand-over notices get no reply; every call still gets one', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-broker-counts-'));
  const saved = { args: process.env.CONVOY_WORKER_NODE_ARGS, counts: process.env.CONVOY_BROKER_COUNTS };
  t.after(() => {
    for (const [name, v] of [['CONVOY_WORKER_NODE_ARGS', saved.args], ['CONVOY_BROKER_COUNTS', saved.counts]] as const) {
      if (v === undefined) delete process.env[name];
      else process.env[name] = v;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  process.env.CONVOY_WORKER_NODE_ARGS = `--require ${fileURLToPath(new URL('./fixtures/count-broker-messages.cjs', import.meta.url))}`;
  process.env.CONVOY_BROKER_COUNTS = dir;
  const { result } = await runHere(fileURLToPath(new URL('./scenarios/partitioned-smoke.yaml', import.meta.url)));
  assert.equal(result.verdict.status, 'pass', JSON.stringify(result.verdict));

  const workers = readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Counts);
  const sum = (pick: (c: Counts) => number) => workers.reduce((n, c) => n + pick(c), 0);
  const settled = sum((c) => c.tells.settle ?? 0);
  const handed = sum((c) => c.tells.handed ?? 0);
  const calls = sum((c) => Object.values(c.calls).reduce((a, b) => a + b, 0));
  const sent = result.workload?.sent ?? 0;
  assert.ok(sent > 0);
  assert.ok(settled >= sent, `every message settled with a tell (${settled} tells for ${sent} messages)`);
  assert.ok(handed >= sent, `every hand-over told (${handed} for ${sent})`);
  assert.equal(sum((c) => c.calls.settle ?? 0) + sum((c) => c.calls.handed ?? 0), 0, 'no settlement waits for an answer');
  // The producer's sends are calls (a send's ack matters): each call, and nothing else, answered.
  assert.ok(sum((c) => c.calls.send ?? 0) >= sent);
  assert.equal(sum((c) => c.replies), calls);
});
