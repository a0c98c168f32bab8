/**
 * `convoy brokers up` semantics: a persistent deployment is recorded in the cache, a later
 * deploy with a matching setup reuses it (its stop() leaves it running), a reused node can
 * still be killed and restarted, a toxic left behind is cleared, and the recorded pid files
 * stop everything (what `convoy brokers down` does).
 */
// @needs own kafka
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafka from '../index.ts';
import { instanceKey } from '../local.ts';
import { knownDefaultVersion } from '../provision.ts';
import { loadInstance, removeInstance } from '../../../harness/runtime/instances.ts';
import { pidAlive, stopByPidFile } from '../../../harness/runtime/process.ts';
import { ToxiproxyApi } from '../../../harness/net/toxiproxy.ts';
import { quiet, settings } from './helpers.ts';

// A broker override gives this test its own instance key, apart from a user's `brokers up`.
const s = settings({ brokerConfig: { 'log.retention.hours': 23 } });
let key = '';
const dirs: string[] = [];

after(async () => {
  const rec = key ? loadInstance(key) : undefined;
  for (const f of rec?.pidFiles ?? []) await stopByPidFile(f, 5_000);
  if (key) removeInstance(key);
  if (!process.env.CONVOY_TEST_KEEP) for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('a persistent deployment is recorded, reused, survives stop(), and is stopped by its pid files', async () => {
  const ctx = (persistent: boolean) => ({
    runtime: 'local' as const,
    workDir: dirs[dirs.push(mkdtempSync(join(tmpdir(), 'convoy-kafka-reuse-'))) - 1]!,
    cacheDir: '',
    log: quiet,
    persistent,
    reuse: true,
  });
  const first = await kafka.deploy(ctx(true), s);
  key = instanceKey(first.versions.kafka!, s);
  assert.equal(first.versions.kafka, knownDefaultVersion());
  const rec = loadInstance(key);
  assert.ok(rec, `instance ${key} recorded`);
  assert.equal(rec.pids.length, 2, 'toxiproxy and one broker');
  assert.ok(rec.pids.every((p) => pidAlive(p)));

  const lines: string[] = [];
  const second = await kafka.deploy({ ...ctx(false), log: (l: string) => lines.push(l) }, s);
  assert.ok(lines.some((l) => /reusing Kafka/.test(l)), lines.join('\n'));
  assert.deepEqual(second.endpoint, first.endpoint);
  await second.stop();
  assert.ok(rec.pids.every((p) => pidAlive(p)), 'stop() of a reused deployment leaves the brokers running');

  // A reused node can still be crashed and restarted; the record follows the new pid.
  const node = second.nodes[0]!;
  await node.stop('SIGKILL');
  assert.equal(node.pid(), undefined);
  await node.start();
  const newPid = node.pid();
  assert.ok(newPid && newPid !== rec.pids[1]);
  assert.equal(loadInstance(key)?.pids[1], newPid);

  // An interrupted run's fault is not inherited by the next run.
  const link = second.links.find((l) => l.name === 'clients')!;
  const api = new ToxiproxyApi(link.toxiproxyUrl);
  await api.addToxic(link.proxies[0]!, { type: 'latency', name: 'left-over', stream: 'downstream', attributes: { latency: 1000 } });
  await api.setEnabled(link.proxies[0]!, false);
  const third = await kafka.deploy(ctx(false), s);
  const proxy = await api.describe(link.proxies[0]!);
  assert.equal(proxy.enabled, true);
  assert.deepEqual(proxy.toxics, []);
  await third.stop();

  const now = loadInstance(key)!;
  for (const f of now.pidFiles) await stopByPidFile(f, 5_000);
  assert.ok(now.pids.every((p) => !pidAlive(p)), 'pid files stop everything');
  assert.equal(loadInstance(key), undefined, 'a record whose processes are gone is stale');
  removeInstance(key);
  key = '';
});
