/** A worker exits by itself when its runner dies: its stream to the runner ends. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pidAlive } from '../../harness/runtime/process.ts';

const WORKER_MAIN = fileURLToPath(new URL('../../harness/roles/main.ts', import.meta.url));

test('worker main exits when its stream to the runner ends (the runner killed with SIGKILL)', { timeout: 30_000 }, async () => {
  // A stand-in runner: starts the worker detached with its stream on fd 3 (as pool.ts does), reads its hello, never answers.
  const parentCode = `
    const { spawn } = require('node:child_process');
    const w = spawn(process.execPath, ['--import', 'tsx', ${JSON.stringify(WORKER_MAIN)}], { detached: true, stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
    w.stdio[3].once('data', (d) => console.log(JSON.stringify({ pid: w.pid, hello: String(d) })));
    setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ['-e', parentCode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const said = await new Promise<{ pid: number; hello: string }>((resolve) => parent.stdout.once('data', (d) => resolve(JSON.parse(String(d)))));
  assert.match(said.hello, /^\{"type":"hello","protocol":1,"convoy":"[^"]+","pid":\d+\}\n$/);
  assert.equal(pidAlive(said.pid), true);
  parent.kill('SIGKILL');
  const deadline = Date.now() + 10_000;
  while (pidAlive(said.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const alive = pidAlive(said.pid);
  if (alive) process.kill(said.pid, 'SIGKILL');
  assert.equal(alive, false, 'the worker outlived its runner');
});
