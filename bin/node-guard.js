// The first import of convoy's node entry points (bin/convoy.js, bin/run-tests.js, the bench):
// started on a Node convoy does not support (`node bin/run-tests.js` on the machine's own), it
// runs the same command again on the Node bin/node-select.sh chooses, after bin/bootstrap.sh has
// built the native modules for it, and exits with its code. On a supported Node it does nothing.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** package.json's engines.node, ">=X.Y.Z", as numbers. */
export function minimumNode() {
  const range = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines?.node ?? '';
  const m = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(range);
  if (!m) throw new Error(`package.json engines.node is ${JSON.stringify(range)}; expected ">=X.Y.Z"`);
  return m.slice(1).map(Number);
}

export function supported(version = process.versions.node) {
  const have = version.split('.').map(Number);
  const want = minimumNode();
  for (let i = 0; i < 3; i++) if (have[i] !== want[i]) return have[i] > want[i];
  return true;
}

if (!supported()) {
  const fail = (line) => {
    process.stderr.write(`convoy: ${line}\n`);
    process.exit(3);
  };
  const chosen = spawnSync('bash', [join(ROOT, 'bin', 'node-select.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const node = chosen.stdout?.trim();
  if (chosen.status !== 0 || !node) process.exit(chosen.status || 3);
  const env = { ...process.env, CONVOY_NODE_BIN: node, PATH: `${dirname(node)}:${process.env.PATH ?? ''}` };
  const boot = spawnSync(join(ROOT, 'bin', 'bootstrap.sh'), { stdio: 'inherit', env });
  if (boot.status !== 0) process.exit(boot.status || 3);
  const again = spawnSync(node, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env });
  if (again.error) fail(`could not start ${node}: ${again.error.message}`);
  if (again.signal) process.kill(process.pid, again.signal);
  process.exit(again.status ?? 1);
}
