/**
 * `convoy parked list` and `convoy parked replay` on a real run of the memory broker whose
 * poison messages parked their keys (scenarios/poison-park-orders.yaml): the lot lists every
 * parked key, and after replay the parked keys' final state is right and nothing is parked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convoy } from '../../../test/runner/helpers.ts';

const SCENARIO = new URL('./scenarios/poison-park-orders.yaml', import.meta.url).pathname;

test('parked keys are listed, and replaying them restores their final state', async () => {
  const results = mkdtempSync(join(tmpdir(), 'convoy-parked-'));
  const run = await convoy(['run', SCENARIO, '--results', results, '--quiet'], { timeoutMs: 90_000 });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const dir = join(results, readdirSync(results)[0]!);

  const list = await convoy(['parked', 'list', dir]);
  assert.equal(list.code, 0, list.stderr);
  const rows = list.stdout.trim().split('\n').slice(1);
  assert.ok(rows.length > 0, 'some keys were parked');
  assert.match(rows[0]!, /poison message seq \d+ failed/);
  const [first] = rows[0]!.split(/\s+/);

  const one = await convoy(['parked', 'replay', dir, '--key', first!]);
  assert.equal(one.code, 0, one.stdout + one.stderr);
  assert.match(one.stdout, /before replay \(versioned\): 0 right, 1 wrong of 1 parked key/);
  assert.match(one.stdout, /final state of the replayed keys \(versioned\): 1 right, 0 wrong/);
  assert.equal((await convoy(['parked', 'list', dir])).stdout.trim().split('\n').length, rows.length, 'one key fewer (header line aside)');

  const rest = await convoy(['parked', 'replay', dir]);
  assert.equal(rest.code, 0, rest.stdout + rest.stderr);
  assert.match(rest.stdout, new RegExp(`final state of the replayed keys \\(versioned\\): ${rows.length - 1} right, 0 wrong`));
  assert.equal((await convoy(['parked', 'list', dir])).stdout, 'no parked keys\n');

  const bad = await convoy(['parked', 'list', results]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /no result\.json here/);
});
