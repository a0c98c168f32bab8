/** Process identity by start time: a recorded pid that now names another process is never signalled. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { groupMembers, procInfo, stopGroups, startTime } from '../../harness/runtime/proc.ts';
import { pidAlive } from '../../harness/runtime/process.ts';

function sleeper() {
  const child = spawn('sh', ['-c', 'sleep 60 & sleep 60'], { detached: true, stdio: 'ignore' });
  return child;
}

test('procInfo reads state, process group and start time, also for a command with spaces and parentheses', () => {
  const me = procInfo(process.pid)!;
  assert.equal(me.pid, process.pid);
  assert.ok(me.start > 0);
  // The command field of /proc/<pid>/stat is the executable's name: "a (b) c" here.
  const dir = mkdtempSync(join(tmpdir(), 'convoy-proc-'));
  symlinkSync('/bin/sleep', join(dir, 'a (b) c'));
  const child = spawn(join(dir, 'a (b) c'), ['5'], { detached: true, stdio: 'ignore' });
  try {
    assert.match(readFileSync(`/proc/${child.pid}/stat`, 'utf8'), /\(a \(b\) c\)/);
    const info = procInfo(child.pid!)!;
    assert.equal(info.pgrp, child.pid, 'a detached child leads its own group');
    assert.ok(info.start >= me.start);
    assert.match(info.state, /^[RSD]$/);
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a group is stopped, children included, only when its leader still has the recorded start time', async () => {
  const child = sleeper();
  const pid = child.pid!;
  await new Promise((r) => setTimeout(r, 200));
  const start = startTime(pid)!;
  assert.equal(groupMembers({ pid, start, name: 'sh' }).length, 3, 'sh and its two sleeps');
  // A stranger that got the pid later has another start time: nothing is signalled.
  assert.deepEqual(groupMembers({ pid, start: start - 1, name: 'sh' }), []);
  assert.deepEqual(await stopGroups([{ pid, start: start - 1, name: 'sh' }], 200), []);
  assert.equal(pidAlive(pid), true);
  const stopped = await stopGroups([{ pid, start, name: 'sh' }], 2_000);
  assert.equal(stopped[0]?.pids.length, 3);
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(groupMembers({ pid, start, name: 'sh' }), []);
});

test('a zombie has no start time: it has exited, though its parent has not collected it yet (CI saw a killed reaper so)', async () => {
  // The shell starts a 1 s sleep in the background, prints its pid, then becomes `sleep 10`,
  // which never collects it: the short sleep stays a zombie until the long one ends. (It was
  // `true &`, which on a loaded machine could exit before the exec, and the shell collected it:
  // no zombie, and the test failed after 5 s.)
  const child = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 10'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const pid = Number(await new Promise<string>((resolve) => child.stdout!.once('data', (d) => resolve(String(d)))));
    const deadline = Date.now() + 8_000;
    while (procInfo(pid)?.state !== 'Z' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(procInfo(pid)?.state, 'Z', 'the background process became a zombie');
    assert.equal(startTime(pid), undefined);
  } finally {
    child.kill('SIGKILL');
  }
});
