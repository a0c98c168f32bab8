/**
 * The exit guard every test file runs with: a file whose tests all finished but whose process a
 * leftover handle keeps alive fails soon and names the handle; a file that ends cleanly is not
 * touched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const guard = pathToFileURL(resolve(import.meta.dirname, '../../bin/test-exit-guard.js')).href;

async function runFile(body: string): Promise<{ code: number | null; out: string; ms: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-exit-guard-'));
  const file = join(dir, 'case.test.mjs');
  writeFileSync(file, `import { test } from 'node:test';\n${body}\n`);
  const started = Date.now();
  // A test runner of its own: without NODE_TEST_CONTEXT, which would make it a part of this one.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', guard, '--test', '--test-reporter=tap', file], {
    env: { ...env, CONVOY_TEST_EXIT_GRACE_MS: '300' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  for (const s of [child.stdout, child.stderr]) s.on('data', (d) => (out += d));
  const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [code] = await once(child, 'exit');
  clearTimeout(kill);
  return { code, out, ms: Date.now() - started };
}

test('a file whose tests passed but left a timer running fails, naming the timer', async () => {
  const r = await runFile("test('leaves a timer', () => { setTimeout(() => {}, 3_600_000); });");
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /ok 1 - leaves a timer/, 'the test itself passed');
  assert.match(r.out, /every test in this file finished, but its process was still running 0 s later, held by: .*Timeout; it fails/);
  assert.ok(r.ms < 15_000, `stopped by the guard, not by the kill after 20 s (${r.ms} ms)`);
});

test('a file that ends by itself passes, and after-hooks longer than the grace time still run', async () => {
  const r = await runFile(
    "import { after } from 'node:test';\ntest('clean', () => {});\nafter(() => new Promise((done) => setTimeout(() => { console.log('hook done'); done(); }, 600)));",
  );
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /hook done/);
  assert.doesNotMatch(r.out, /still running/);
});
