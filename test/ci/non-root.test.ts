// @needs root
/**
 * A hosted CI runner is not root: bin/ci-nightly.sh's set-up must install through sudo. Here a
 * user made by the test, with sudo that needs no password, runs convoy, the set-up's install
 * path for a small Debian package, and the script's set-up; the test then removes the package
 * and the user.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cacheDir } from '../../harness/runtime/cache.ts';
import { join, relative } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
const PACKAGE = 'hello'; // GNU hello: small, and nothing convoy needs
const run = (cmd: string, args: string[], cwd?: string) => spawnSync(cmd, args, { encoding: 'utf8', timeout: 300_000, cwd, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
const installed = (p: string) => run('dpkg-query', ['-W', '-f=${Status}', p]).stdout.includes('install ok installed');

test('a user with sudo (no password), not root, runs convoy, installs a Debian package through the set-up, and runs the nightly script\'s set-up', () => {
  assert.equal(process.getuid?.(), 0, 'this rehearsal makes a user: it runs as root (as CI does here)');
  if (!installed('sudo')) {
    let r = run('apt-get', ['install', '-y', '-qq', 'sudo']);
    if (r.status !== 0) r = (run('apt-get', ['update', '-qq']), run('apt-get', ['install', '-y', '-qq', 'sudo']));
    assert.equal(r.status, 0, r.stderr);
  }
  if (installed(PACKAGE)) assert.equal(run('apt-get', ['remove', '-y', '-qq', PACKAGE]).status, 0);
  const user = `convoy-ci-${process.pid % 100000}`;
  // Under /tmp itself: the test runner's own temporary folder is root's alone.
  const home = mkdtempSync('/tmp/convoy-ci-home-');
  chmodSync(home, 0o755);
  const sudoers = `/etc/sudoers.d/${user}`;
  try {
    assert.equal(run('useradd', ['-M', '-d', home, '-s', '/bin/bash', user]).status, 0);
    run('chown', [user, home]);
    writeFileSync(sudoers, `${user} ALL=(root) NOPASSWD: ALL\n`, { mode: 0o440 });
    // The checkout, linked into the user's home: the one under test may sit in a folder only
    // root can enter (a CI tool's temporary clone), and its permissions are not the test's to change.
    const repo = join(home, 'convoy');
    assert.equal(run('cp', ['-al', ROOT.replace(/\/$/, ''), repo]).status, 0);
    // The user's cache: this machine's downloads linked in (read only), so it has nothing to
    // fetch: the Node convoy runs on among them, when it is a fetched one (root's cache is root's).
    const cache = join(home, 'cache');
    const node = process.execPath.startsWith(cacheDir() + '/') ? join(cache, relative(cacheDir(), process.execPath)) : process.execPath;
    // Working in that copy: a working folder the user cannot enter would fail every program it starts.
    const as = (args: string[]) => run('runuser', ['-u', user, '--', 'env', `HOME=${home}`, `TMPDIR=${home}`, `CONVOY_CACHE=${cache}`, `PATH=${process.env.PATH}`, ...args], repo);
    as(['mkdir', '-p', cache]);
    for (const d of ['node', 'kafka', 'elasticmq', 'pstest', 'toxiproxy', 'ajv']) if (existsSync(join(cacheDir(), d))) run('cp', ['-al', join(cacheDir(), d), join(cache, d)]);

    // convoy itself, as that user: its first-use check passes without trying to install.
    const version = as([join(repo, 'convoy'), '--version']);
    assert.equal(version.status, 0, version.stderr);
    assert.match(version.stdout, /^\d+\.\d+\.\d+/);

    // The set-up's install path, through sudo.
    const r = as([node, '--import', 'tsx', join(repo, 'test/ci/rehearse-apt.ts'), PACKAGE]);
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const first = JSON.parse(r.stdout.split('\n')[0]!) as { uid: number; apt: { command: string; mayInstall: boolean } };
    assert.notEqual(first.uid, 0);
    assert.deepEqual([first.apt.command, first.apt.mayInstall], ['sudo', true]);
    assert.match(r.stdout, new RegExp(`installed ${PACKAGE}`));
    assert.ok(installed(PACKAGE), `${PACKAGE} is installed`);

    // The script's own set-up, as that user: everything is installed, and the broker files
    // come from this machine's cache (linked, read only), so it has nothing to fetch.
    const setup = as([join(repo, 'bin/ci-nightly.sh'), '--setup-only']);
    assert.equal(setup.status, 0, `${setup.stdout}\n${setup.stderr}`);
    assert.match(setup.stderr, new RegExp(`user ${user},`));
    assert.match(setup.stderr, /setup: everything in place/);
    assert.match(setup.stderr, /ci-nightly: set-up done/);

    // Without sudo, the same user gets the one line that says what to run, and nothing is installed.
    rmSync(sudoers, { force: true });
    run('apt-get', ['remove', '-y', '-qq', PACKAGE]);
    const denied = as([node, '--import', 'tsx', join(repo, 'test/ci/rehearse-apt.ts'), PACKAGE]);
    assert.notEqual(denied.status, 0);
    assert.match(denied.stderr, /as root: apt-get update && apt-get install -y hello .*or as a user with sudo that needs no password/);
    assert.ok(!installed(PACKAGE));
  } finally {
    rmSync(sudoers, { force: true });
    run('userdel', [user]);
    rmSync(home, { recursive: true, force: true });
    if (installed(PACKAGE)) run('apt-get', ['remove', '-y', '-qq', PACKAGE]);
  }
});
