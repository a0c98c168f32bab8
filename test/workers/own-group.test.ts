/**
 * A worker's crash or freeze takes the processes it started with it (its client process behind
 * the client protocol): signalOwnGroup signals the worker's whole process group.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pidAlive } from '../../harness/runtime/process.ts';

const OWN_GROUP = fileURLToPath(new URL('../../harness/workers/own-group.ts', import.meta.url));

/** A detached process (a group leader, as the pool starts workers) with a child of its own; it prints the child's pid, then signals its group. */
function leaderWithChild(signal: string): Promise<{ child: number; leader: number; code: number | null; sig: NodeJS.Signals | null }> {
  const script = `
    import { spawn } from 'node:child_process';
    import { signalOwnGroup } from ${JSON.stringify(OWN_GROUP)};
    const c = spawn('sleep', ['30'], { stdio: 'ignore' });
    console.log(c.pid);
    setTimeout(() => signalOwnGroup(${JSON.stringify(signal)}), 200);
  `;
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout!.on('data', (d) => (out += String(d)));
    p.on('exit', (code, sig) => resolve({ child: Number(out.trim()), leader: p.pid!, code, sig }));
  });
}

test('a worker that kills its own group kills the client process it started', async () => {
  const r = await leaderWithChild('SIGKILL');
  assert.equal(r.sig, 'SIGKILL');
  assert.ok(r.child > 0);
  await new Promise((res) => setTimeout(res, 100));
  assert.equal(pidAlive(r.child), false, 'the child died with its worker');
});
