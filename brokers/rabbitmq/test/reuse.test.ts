/**
 * `convoy brokers up` semantics: a persistent node is recorded in the cache, a later deploy
 * reuses it (and does not stop it), and its node can still be killed and restarted.
 */
// @needs own rabbitmq
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deployLocal, instanceKey, type RabbitDeployment } from '../local.ts';
import type { RabbitAdmin } from '../admin.ts';
import { resolveSettings } from '../settings.ts';
import { loadInstance } from '../../../harness/runtime/instances.ts';
import { pidAlive } from '../../../harness/runtime/process.ts';
import { Harness, payload, quiet, waitFor } from './helpers.ts';

process.env.CONVOY_CACHE = mkdtempSync(join(tmpdir(), 'convoy-rmq-cache-'));
// Records in that cache, never beside the test suite's held brokers.
delete process.env.CONVOY_INSTANCES;
const settings = resolveSettings({ kind: 'rabbitmq' });
let first: RabbitDeployment | undefined;

after(async () => {
  await first?.stop();
});

it('a persistent node is recorded, reused by the next deploy, and restartable from there', { timeout: 90_000 }, async () => {
  const ctx = { runtime: 'local' as const, cacheDir: '', log: quiet };
  first = await deployLocal({ ...ctx, workDir: mkdtempSync(join(tmpdir(), 'convoy-rmq-up-')), persistent: true }, settings);
  const rec = loadInstance(instanceKey(settings));
  assert.ok(rec, 'recorded in the cache');
  assert.equal(rec.key, 'rabbitmq-3.10-1node');
  assert.equal(rec.pids.length, 2, 'node and toxiproxy');

  const second = await deployLocal({ ...ctx, workDir: mkdtempSync(join(tmpdir(), 'convoy-rmq-run-')) }, settings);
  assert.equal(second.reused, true);
  assert.deepEqual(second.endpoint, first.endpoint);
  // The node is killed below: flush the queue's registration first (see settings.syncMetadata;
  // without it a SIGKILL soon after the declaration can forget the queue, as CI once saw).
  const h = await Harness.create(second, { topology: 'single-active', syncMetadata: true }, 'reuse');
  assert.equal((h.admin as RabbitAdmin).metadataSync, 'done', 'the queue is on disk before the kill');
  try {
    const p = await h.producer();
    await p.send({ key: 'k', payload: payload('k', 0) });
    const node = second.nodes[0]!;
    const oldPid = node.pid();
    await node.stop('SIGKILL');
    assert.equal(pidAlive(oldPid), false);
    await node.start();
    assert.notEqual(loadInstance(instanceKey(settings))?.pids[0], rec.pids[0], 'the record follows the restarted node');
    await h.consumer('c1');
    await waitFor(() => h.handled.length === 1, 10_000, 'the message sent before the restart');
  } finally {
    await h.close();
  }
  await second.stop();
  assert.ok(loadInstance(instanceKey(settings)), 'stopping a reused deployment leaves the node running');

  await first.stop();
  first = undefined;
  assert.equal(loadInstance(instanceKey(settings)), undefined, 'stopping the persistent deployment removes the record');
});
