/**
 * `convoy check <run folder>` gives the run's own verdict: it analyses the run again from the
 * record the run kept (its scenario's expectations, settle time and reasons to be incomplete),
 * where checking the bare history judges it by the defaults. A memory-broker run in this
 * process whose scenario expects reorders (an unordered pool inside the consumer).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHere } from '../../brokers/memory/test/run-here.ts';
import { runCheck, runCheckFolder, runFolderOf } from '../../harness/cli/commands/check.ts';
import { RECORD_FILE } from '../../harness/runner/record-file.ts';
import { InputError } from '../../harness/errors.ts';
import { convoy } from '../runner/helpers.ts';

test('a run folder checked again gives the run verdict, with its own expectations; its bare history is judged by the defaults', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-check-folder-'));
  const file = join(dir, 'pool.yaml');
  writeFileSync(
    file,
    [
      'broker: { kind: memory, mode: partitioned, partitions: 2 }',
      'workload: { keys: { count: 4 }, rate: { kind: fixed, perSecond: 200 }, durationMs: 2s, warmupMs: 200ms }',
      'consumers: { processes: 1, concurrency: { mode: unordered, workers: 4 }, handler: { kind: exponential, meanMs: 4 } }',
      'expect: { reorder: ">0", overlap: any, displaced: any }',
      'run: { settleMs: 1500 }',
    ].join('\n'),
  );
  const { result, runDir } = await runHere(file);
  assert.equal(result.verdict.status, 'pass', result.verdict.reasons.join('; '));
  assert.ok(result.anomalies.reorder.count > 0);
  assert.ok(existsSync(join(runDir, RECORD_FILE)), 'the run kept its record');

  const again = await runCheckFolder(runDir);
  assert.equal(again.result.verdict.status, 'pass', again.output);
  assert.equal(again.exitCode, 0);
  assert.equal(again.result.anomalies.reorder.count, result.anomalies.reorder.count);
  assert.deepEqual(
    again.result.expectations.map((e) => [e.type, e.expected, e.found]),
    result.expectations.map((e) => [e.type, e.expected, e.found]),
  );
  assert.match(again.output, /with its own expectations and settle time \(1500 ms\)/);
  // result.json names its folder.
  assert.equal(runFolderOf(join(runDir, 'result.json')), runDir);
  assert.equal(runFolderOf(join(runDir, 'history.jsonl')), null);

  // The bare history, with no expectations given: the defaults (reorder 0), a failure.
  const bare = await runCheck({ history: join(runDir, 'history.jsonl') });
  assert.equal(bare.result.verdict.status, 'fail');
  assert.equal(bare.exitCode, 1);

  // The folder moved elsewhere still checks (the record's paths are the folder's own).
  const moved = mkdtempSync(join(tmpdir(), 'convoy-check-moved-'));
  for (const f of ['history.jsonl', RECORD_FILE, 'state.sqlite']) if (existsSync(join(runDir, f))) writeFileSync(join(moved, f), readFileSync(join(runDir, f)));
  assert.equal((await runCheckFolder(moved)).result.verdict.status, 'pass');

  // A folder without a record says so in one line, with what to do instead.
  rmSync(join(moved, RECORD_FILE));
  await assert.rejects(runCheckFolder(moved), (e: Error) => e instanceof InputError && /no record\.json/.test(e.message) && /convoy check .*history\.jsonl --expect/.test(e.message));

  // Through the CLI: the run's exit code; options that would judge it otherwise are refused.
  const cli = await convoy(['check', runDir], { timeoutMs: 60_000 });
  assert.equal(cli.code, 0, cli.stderr + cli.stdout);
  assert.match(cli.stdout, /verdict: PASS/);
  const refused = await convoy(['check', runDir, '--expect', 'reorder=0'], { timeoutMs: 60_000 });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /checked with its own expectations/);
});
