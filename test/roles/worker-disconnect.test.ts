/** A worker exits by itself when its parent (the runner) dies and the IPC channel closes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pidAlive } from '../../harness/runtime/process.ts';

const WORKER_MAIN = fileURLToPath(new URL('../../harness/roles/main.ts', import.meta.url));

test('worker main exits when the IPC channel to its parent closes (parent killed with SIGKILL)', { timeout: 30_000 }, async () => {
  // A stand-in parent: forks the worker detached (as WorkerHandle does), never sends init.
  const parentCode = `
    const { fork } = require('node:child_process');
    const w = fork(${JSON.stringify(WORKER_MAIN)}, [], { execArgv: ['--import', 'tsx'], detached: true, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    w.on('spawn', () => console.log(w.pid));
    setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ['-e', parentCode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const workerPid = await new Promise<number>((resolve) => parent.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  await new Promise((r) => setTimeout(r, 1_500)); // the worker has loaded and listens
  assert.equal(pidAlive(workerPid), true);
  parent.kill('SIGKILL');
  const deadline = Date.now() + 10_000;
  while (pidAlive(workerPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const alive = pidAlive(workerPid);
  if (alive) process.kill(workerPid, 'SIGKILL');
  assert.equal(alive, false, 'the worker outlived its parent');
});
