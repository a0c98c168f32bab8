import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { drawRange, freePort, freePorts } from '../../harness/runtime/ports.ts';

test('ports are drawn below the ephemeral range, where outgoing connections never take them', async () => {
  assert.deepEqual(drawRange([32768, 60999]), [20000, 32767]);
  // A range that leaves no room below it: the whole unprivileged range.
  assert.deepEqual(drawRange([1024, 65535]), [1024, 65535]);
  const [low, high] = drawRange();
  for (const p of await freePorts(20)) assert.ok(p >= low && p <= high, `${p} outside [${low}, ${high}]`);
});

test('a port handed out is free to bind, and never handed out twice in one process', async () => {
  const ports = await freePorts(50);
  assert.equal(new Set(ports).size, 50);
  const p = await freePort();
  await new Promise<void>((resolve, reject) => {
    const srv = createServer().once('error', reject);
    srv.listen(p, '127.0.0.1', () => srv.close(() => resolve()));
  });
});
