/** `convoy run` / `rerun` take --no-reuse-brokers: the run then deploys brokers of its own. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { addRunOptions, type RunFlags } from '../../harness/cli/commands/run.ts';

function flags(args: string[]): RunFlags {
  let seen: RunFlags | undefined;
  const program = new Command('convoy').exitOverride();
  addRunOptions(program.command('run').argument('<scenario>')).action((_f: string, o: RunFlags) => {
    seen = o;
  });
  program.parse(['node', 'convoy', 'run', 'x.yaml', ...args]);
  assert.ok(seen);
  return seen;
}

test('a run adopts recorded brokers by default and deploys its own with --no-reuse-brokers', () => {
  assert.equal(flags([]).reuseBrokers, true);
  assert.equal(flags(['--no-reuse-brokers']).reuseBrokers, false);
});
