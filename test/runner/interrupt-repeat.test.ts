/**
 * Regression: Ctrl-C during `convoy run --repeat N` ended only the run it came in, and the next
 * repetition started. It now ends the repetition: the interrupted run is kept (unknown), no
 * further run starts, exit 3.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convoy } from './helpers.ts';

test('Ctrl-C during --repeat ends the repetition, not just the current run', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-int-repeat-'));
  const file = join(dir, 's.yaml');
  writeFileSync(
    file,
    [
      'name: interrupted-repeat',
      'broker: { kind: memory, mode: partitioned, partitions: 2 }',
      'workload: { keys: { count: 5 }, rate: { kind: fixed, perSecond: 50 }, durationMs: 30s, warmupMs: 0s }',
      'consumers: { processes: 1 }',
    ].join('\n'),
  );
  let sent = false;
  const r = await convoy(['run', file, '--repeat', '3', '--results', join(dir, 'results')], {
    timeoutMs: 100_000,
    onStderr: (chunk, child) => {
      if (!sent && /produce \d+s/.test(chunk)) {
        sent = true;
        child.kill('SIGINT');
      }
    },
  });
  assert.ok(sent, `the run never started producing:\n${r.stderr}`);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /interrupted: 1 of 3 runs done; not starting the rest/);
  assert.doesNotMatch(r.stderr, /run 2 of 3/);
  assert.equal(readdirSync(join(dir, 'results')).filter((d) => d.startsWith('interrupted-repeat')).length, 1);
});
