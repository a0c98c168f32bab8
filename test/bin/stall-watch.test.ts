/**
 * The test runner's watchdog: when no test finishes for its idle time, the test files'
 * processes under the runner are stopped (and only those), so a file that hangs after its
 * tests cannot hold the suite until CI's limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error: a plain JavaScript module of bin/
import { watchProgress } from '../../bin/stall-watch.js';

test('a test file process that makes no progress is stopped, and the runner above it goes on', async () => {
  const record = join(mkdtempSync(join(tmpdir(), 'convoy-stall-')), 'record.jsonl');
  // A stand-in for node's runner: it runs one "test file" that never ends, and a helper that is
  // no test file, and exits when the file's process does.
  const runner = spawn(process.execPath, ['-e', `
    const { spawn } = require('node:child_process');
    const file = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'hangs.test.ts'], { stdio: 'ignore' });
    const helper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    console.log(helper.pid);
    file.on('exit', (code, signal) => { console.log('file ' + signal); helper.kill(); });
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  runner.stdout.on('data', (d) => (out += d));
  const said: string[] = [];
  const stop = watchProgress({ file: record, rootPid: runner.pid, idleMs: 400, pollMs: 100, say: (l: string) => said.push(l) });
  const t = setTimeout(() => runner.kill('SIGKILL'), 10_000);
  await once(runner, 'exit');
  clearTimeout(t);
  stop();
  assert.match(out, /file SIGKILL/, 'the test file process was stopped');
  assert.equal(said.length, 1, said.join('\n'));
  assert.match(said[0]!, /no test finished for 0 s: stopping hangs\.test\.ts \(pid \d+\); it fails/);
});
