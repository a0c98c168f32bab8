/**
 * The order service's store and modes without a broker: how each mode numbers an
 * event, against one SQLite file opened by two "instances" as separate connections.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OrderStore, laneOf } from '../../harness/gateway/order-store.ts';
import { GATEWAY_MODES, gatewayMode } from '../../harness/gateway/registry.ts';
import { duplicateVersions } from '../../harness/gateway/figures.ts';

const twoInstances = () => {
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-orders-')), 'orders.sqlite');
  return [new OrderStore(file), new OrderStore(file)] as const;
};

test('the modes are the files in harness/gateway/modes/, found without a list', () => {
  assert.deepEqual(GATEWAY_MODES.map((m) => m.name), ['direct', 'key-affine', 'locked', 'outbox']);
  assert.equal(gatewayMode('key-affine').router, true);
  assert.equal(gatewayMode('outbox').relay, true);
  assert.equal(gatewayMode('direct').router ?? false, false);
});

test('direct: two instances that read before either writes give one version twice; the commit index still counts both', async () => {
  const [a, b] = twoInstances();
  // Both requests arrive together: each instance reads, yields (its database round trip), writes.
  const [ea, eb] = await Promise.all([gatewayMode('direct').write(a, { key: 'k1', event: 'PLACED' }, 0), gatewayMode('direct').write(b, { key: 'k1', event: 'PAID' }, 0)]);
  assert.equal(ea!.version, 1);
  assert.equal(eb!.version, 1);
  assert.deepEqual([ea!.commitIndex, eb!.commitIndex].sort(), [1, 2]);
  assert.notEqual(ea!.id, eb!.id);
  a.close();
  b.close();
});

test('locked: the version is numbered inside the write transaction, so two instances never share one', async () => {
  const [a, b] = twoInstances();
  const mode = gatewayMode('locked');
  const written = await Promise.all(Array.from({ length: 10 }, (_, i) => mode.write(i % 2 ? a : b, { key: 'k1', event: 'E' }, 0)));
  assert.deepEqual(written.map((e) => e!.version).sort((x, y) => x - y), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  for (const e of written) assert.equal(e!.version, e!.commitIndex);
  assert.deepEqual(a.orders(), [{ key: 'k1', version: 10, events: 10 }]);
  a.close();
  b.close();
});

test('outbox: the instance publishes nothing; a lane hands its unsent rows out in commit order until they are marked sent', async () => {
  const [a, b] = twoInstances();
  const mode = gatewayMode('outbox');
  for (let i = 0; i < 6; i++) assert.equal(await mode.write(i % 2 ? a : b, { key: `k${i % 3}`, event: 'E' }, i % 2), null);
  const lane0 = a.unsent(0, 100);
  assert.deepEqual(lane0.map((e) => e.key), ['k0', 'k2', 'k1']);
  assert.ok(lane0.every((e, i) => i === 0 || e.id > lane0[i - 1]!.id));
  a.markSent(lane0.slice(0, 2).map((e) => e.id));
  assert.deepEqual(b.unsent(0, 100).map((e) => e.id), [lane0[2]!.id]);
  assert.equal(b.backlog(), 1 + 3);
  a.close();
  b.close();
});

test('laneOf is stable and within range', () => {
  for (const key of ['k0', 'k1', 'order-77']) {
    assert.equal(laneOf(key, 3), laneOf(key, 3));
    assert.ok(laneOf(key, 3) >= 0 && laneOf(key, 3) < 3);
  }
  assert.equal(laneOf('anything', 1), 0);
});

test('duplicate versions: distinct events of one order with one version count; a resend of one event does not', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-dupv-')), 'history.jsonl');
  const send = (key: string, seq: number, version: number, event: number) => JSON.stringify({ type: 'send', key, producer: 'gateway', seq, at: seq, version, event });
  writeFileSync(
    file,
    [
      send('k1', 1, 1, 10),
      send('k1', 2, 1, 11), // a second event numbered 1: one duplicate version
      send('k1', 3, 2, 12),
      send('k2', 1, 1, 13),
      send('k2', 1, 1, 13), // the relay sent event 13 again: not a duplicate version
      JSON.stringify({ type: 'send', key: 'k3', producer: 'p', seq: 1, at: 1 }), // an ordinary producer: no version
    ].join('\n') + '\n',
  );
  const d = await duplicateVersions(file);
  assert.deepEqual(d, { count: 1, keys: 1, events: 4, examples: [{ key: 'k1', version: 1, events: [10, 11] }] });
});

test('duplicate versions: a history of ordinary producers has none to count (null, not 0)', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-dupv-')), 'history.jsonl');
  writeFileSync(file, JSON.stringify({ type: 'send', key: 'k', producer: 'p', seq: 1, at: 1 }) + '\n');
  assert.equal(await duplicateVersions(file), null);
});
