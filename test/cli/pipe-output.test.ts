/**
 * What convoy prints reaches a pipe whole, however slowly the reader reads: the CLI exits
 * explicitly, and must not cut what is still queued for the pipe (a `--json` document was cut at
 * 64 KiB). A reader that leaves early (`| head`) costs no error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONVOY = join(ROOT, 'bin', 'convoy.js');

/** A scenario whose printed form is about 190 KB (a long description, in words). */
function bigScenario(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-pipe-')), 'big.yaml');
  const base = readFileSync(join(ROOT, 'brokers/memory/test/scenarios/unordered-pool.yaml'), 'utf8');
  writeFileSync(file, base.replace('name: memory-unordered-pool', `name: memory-unordered-pool\ndescription: "${'a pool of handlers '.repeat(10_000)}"`));
  return file;
}

/** Runs a bash line; its stdout and stderr. */
function bash(line: string): Promise<{ stdout: string; stderr: string }> {
  const child = spawn('bash', ['-c', line], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((r) => child.on('close', () => r({ stdout, stderr })));
}

// A slow reader at the far end of a real pipe (a spawned child's 'pipe' is a socket, which Node
// writes otherwise): a pause after every chunk, so convoy has written everything and wants to exit
// long before the pipe is empty. It prints how much came, and whether the end came.
const SLOW_READER = `let n = 0, end = false; process.stdin.setEncoding('utf8').on('data', (d) => { n += d.length; end ||= d.includes('wrong-state'); process.stdin.pause(); setTimeout(() => process.stdin.resume(), 300); }).on('end', () => console.log(n, end))`;

test('a print larger than a pipe holds arrives whole at a reader that reads slowly', async () => {
  const { stdout, stderr } = await bash(`"${process.execPath}" "${CONVOY}" validate --print "${bigScenario()}" | "${process.execPath}" -e "${SLOW_READER}"; echo "convoy exit \${PIPESTATUS[0]}"`);
  const [counted, exit] = stdout.trim().split('\n');
  assert.equal(exit, 'convoy exit 0', stderr);
  const [n, end] = counted!.split(' ');
  assert.ok(Number(n) > 190_000 && end === 'true', `${n} characters arrived, the end ${end === 'true' ? 'among them' : 'not'}`);
});

test('a reader that closes the pipe early: exit 0, no error on stderr', async () => {
  const { stdout, stderr } = await bash(`"${process.execPath}" "${CONVOY}" validate --print "${bigScenario()}" | head -c 10 > /dev/null; echo "convoy exit \${PIPESTATUS[0]}"`);
  assert.equal(stdout.trim(), 'convoy exit 0');
  assert.equal(stderr, '');
});
