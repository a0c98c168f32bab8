/**
 * The CLI loads only the command it runs (harness/cli/main.ts): each command's file is named
 * after it. Without a command name (help, a typo) every command is there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { buildProgram } from '../../harness/cli/main.ts';

const COMMAND_FILES = readdirSync(new URL('../../harness/cli/commands/', import.meta.url)).filter((f) => f.endsWith('.ts')).map((f) => f.replace(/\.ts$/, '')).sort();

test('a command line loads its own command only; help and unknown names load them all', async () => {
  assert.deepEqual((await buildProgram(['parked', 'list', 'x'])).commands.map((c) => c.name()), ['parked']);
  assert.deepEqual((await buildProgram(['run', 'x.yaml'])).commands.map((c) => c.name()), ['run']);
  for (const argv of [[], ['--help'], ['rnu'], ['help', 'run']]) {
    assert.deepEqual((await buildProgram(argv)).commands.map((c) => c.name()).sort(), COMMAND_FILES, argv.join(' '));
  }
  // --version needs none (its start-up time is `npm run bench -- cli-start`).
  assert.deepEqual((await buildProgram(['--version'])).commands, []);
  assert.deepEqual((await buildProgram(['-V'])).commands, []);
});

test('a usage error is its line and a pointer to the help, not the whole help', async () => {
  const { convoy } = await import('../runner/helpers.ts');
  const r = await convoy(['run', '--bogus', 'x.yaml'], { timeoutMs: 30_000 });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown option '--bogus'/);
  assert.match(r.stderr, /\(add --help for usage\)/);
  assert.doesNotMatch(r.stderr, /Options:/);
});
