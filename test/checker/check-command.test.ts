/**
 * The `convoy check` command module, without bin/convoy.js: runCheck directly, and the
 * commander command that register() adds (stdout captured, process.exitCode restored).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parseSettle, register, runCheck } from '../../harness/cli/commands/check.ts';
import { InputError } from '../../harness/errors.ts';

const GOLDEN = new URL('./golden/', import.meta.url).pathname;
const g = (name: string) => join(GOLDEN, `${name}.jsonl`);
const validate = new Ajv2020({ allowUnionTypes: true, validateFormats: false }).compile(
  JSON.parse(readFileSync(new URL('../../results/schema/result.v1.json', import.meta.url), 'utf8')) as object,
);

test('exit codes: 0 when expectations hold, 1 when one fails', async () => {
  assert.equal((await runCheck({ history: g('clean-interleaved') })).exitCode, 0);
  assert.equal((await runCheck({ history: g('reorder') })).exitCode, 1);
  assert.equal((await runCheck({ history: g('reorder'), expect: ['reorder=>0', 'displaced=any'] })).exitCode, 0);
  assert.equal((await runCheck({ history: g('reorder'), expect: ['reorder=>0', 'displaced=0'] })).exitCode, 1);
  assert.equal((await runCheck({ history: g('fault-window'), expect: ['reorder=any,reorder@stall-c1=>0'] })).exitCode, 0);
  assert.equal((await runCheck({ history: g('fault-window'), expect: ['reorder=any,reorder@stall-c1=>0'], settleMs: 0 })).exitCode, 1);
});

test('the summary shows counts, examples and the verdict', async () => {
  const { output } = await runCheck({ history: g('reorder') });
  assert.match(output, /^convoy check .*reorder\.jsonl\n/);
  assert.match(output, /\n {2}reorder +3 +2 +0 +FAIL\n/);
  assert.match(output, /\n {2}lost +0 +0 +0 +ok\n/);
  assert.match(output, /\n {2}displaced +2 +2 +any +-\n/);
  assert.match(output, /reorder +key k2 producer p seq 1: seq 1 first landed at 250 after seq 3 had landed at 150/);
  assert.match(output, /\nverdict: FAIL\n {2}- reorder: expected 0, found 3 \(2 keys\)\n$/);
});

test('--json prints the result envelope, valid against the schema', async () => {
  const { output, result } = await runCheck({ history: g('split'), json: true });
  const parsed = JSON.parse(output);
  assert.deepEqual(parsed, result);
  assert.ok(validate(parsed));
  assert.equal(parsed.anomalies.split.count, 2);
  assert.equal(result.check?.history, g('split'));
});

test('unusable input: bad line with file and line number; --lenient skips it and the verdict is unknown', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-check-'));
  try {
    const file = join(dir, 'history.jsonl');
    const clean = readFileSync(g('clean-interleaved'), 'utf8').split('\n');
    clean.splice(16, 0, '{"type":"send","key":"k1"');
    writeFileSync(file, clean.join('\n'));
    await assert.rejects(runCheck({ history: file }), (err: unknown) => {
      assert.ok(err instanceof InputError);
      assert.match(err.message, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:17: invalid JSON`));
      assert.equal(err.exitCode, 2);
      return true;
    });
    const lenient = await runCheck({ history: file, lenient: true });
    // An unknown verdict exits 3, as from every command.
    assert.equal(lenient.exitCode, 3);
    assert.equal(lenient.result.verdict.status, 'unknown');
    assert.deepEqual(lenient.result.check?.input.badLineSamples.map((b) => b.line), [17]);
    assert.match(lenient.output, /skipped line 17: invalid JSON/);
    await assert.rejects(runCheck({ history: join(dir, 'missing.jsonl') }), /missing\.jsonl: cannot read the history \(ENOENT\)/);
    await assert.rejects(runCheck({ history: dir }), /not a file/);
    await assert.rejects(runCheck({ history: file, expect: ['lots=0'] }), InputError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--settle is a duration ("5s", "500ms") or a number of milliseconds, not negative', () => {
  assert.equal(parseSettle('250'), 250);
  assert.equal(parseSettle('0'), 0);
  assert.equal(parseSettle('5s'), 5000);
  assert.equal(parseSettle('500ms'), 500);
  for (const bad of ['', '-1', 'soon', 'NaN', '5 s']) assert.throws(() => parseSettle(bad), InputError);
});

test('register() adds `check`; its action prints and sets process.exitCode', async () => {
  let out = '';
  const program = new Command('convoy').exitOverride().configureOutput({ writeOut: (s) => (out += s) });
  register(program);
  const cmd = program.commands.find((c) => c.name() === 'check');
  assert.ok(cmd);
  assert.deepEqual(cmd.options.map((o) => o.long).sort(), ['--expect', '--json', '--lenient', '--no-clock-correction', '--settle']);

  const saved = process.exitCode;
  let code: typeof process.exitCode;
  try {
    await program.parseAsync(['check', g('reorder'), '--json', '--expect', 'reorder=>0', '--expect', 'displaced=>0', '--settle', '100'], { from: 'user' });
    code = process.exitCode;
  } finally {
    process.exitCode = saved;
  }
  assert.equal(code, 0);
  const r = JSON.parse(out);
  assert.equal(r.verdict.status, 'pass');
  assert.equal(r.check.settleMs, 100);
  assert.deepEqual(r.expectations.filter((e: { source: string }) => e.source === 'given').map((e: { type: string }) => e.type), ['reorder', 'displaced']);
});
