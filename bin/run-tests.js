#!/usr/bin/env node
// Runs the test suite with node's test runner: every test/**/*.test.ts and every broker's own
// brokers/<name>/test/**/*.test.ts: first those that need no broker, two processes per processor,
// then those that start real brokers, one file at a time (two at once on a 2-core machine would
// make them flaky). `--unit` runs only the tests that need no broker; `--list` prints the plan
// (phases, and the files of each process) instead of running it; `--times` adds each file's wall
// time. Extra arguments are file filters. No list names brokers or folders: a test needs brokers
// when it sits in a broker's folder (brokers/<name>/test/ or test/<name>/, a name from brokers/),
// or in a folder that says so with a NEEDS-BROKERS file (its text says why); a broker that runs
// inside the test process says so with brokers/<name>/test/IN-PROCESS.
//
// Tests that need no broker run a folder to a process, cut into chunks where their remembered
// times say so (see plan() below; `--isolated`: a file to a process, as node's runner does by
// default).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { availableParallelism, tmpdir, userInfo } from 'node:os';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compiledTree } from './compiled-tree.js';
import { pidAlive } from './pid-alive.js';
import { readTimes } from './test-times.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const filters = args.filter((a) => !a.startsWith('--'));
const brokers = readdirSync(join(root, 'brokers')).filter((b) => existsSync(join(root, 'brokers', b, 'index.ts')));

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.test.ts') ? [p] : [];
  });
}

function needsBrokers(file) {
  const parts = file.split('/');
  if (parts[0] === 'brokers') return !existsSync(join(root, 'brokers', parts[1], 'test', 'IN-PROCESS'));
  if (brokers.includes(parts[1])) return true;
  for (let i = 2; i < parts.length; i++) if (existsSync(join(root, ...parts.slice(0, i), 'NEEDS-BROKERS'))) return true;
  return false;
}

let files = [join(root, 'test'), ...brokers.map((b) => join(root, 'brokers', b, 'test'))].flatMap(walk).map((f) => relative(root, f)).sort();
if (unitOnly) files = files.filter((f) => !needsBrokers(f));
if (filters.length) files = files.filter((f) => filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Tests that need no broker share nothing (each has its own temporary folders, ports and cache).
// Their processes spend most of their time waiting on runs (a memory-broker run's clock, not its
// CPU), so two per core: 458 unit tests took 217 s wall at 2 processes, 140 s at 4 and 134 s at 6
// on 2 cores, with the same CPU. CONVOY_TEST_CONCURRENCY overrides. Tests that start real brokers
// run one at a time, after the others (see phases below).
const unitConcurrency = Number(process.env.CONVOY_TEST_CONCURRENCY ?? 2 * availableParallelism());
/**
 * Two phases when both kinds are chosen: the tests that need no broker first, several processes
 * at once, then those that start real brokers, one at a time (two at once on 2 cores make them
 * flaky). One node runner for both ran every file one at a time: in a whole-suite run the unit
 * files took 288 s, where the unit tier alone takes 126 s.
 */
const phases = [
  { files: files.filter((f) => !needsBrokers(f)), concurrency: unitConcurrency },
  { files: files.filter(needsBrokers), concurrency: 1 },
].filter((p) => p.files.length > 0);
// The usual report (node's default: spec on a terminal, TAP otherwise); `--times` adds each
// file's wall time, slowest first; every run remembers the files' times for the next one's plan.
const reporters = [
  ...(args.includes('--times') ? ['spec', join(root, 'bin', 'file-times.js')] : [process.stdout.isTTY ? 'spec' : 'tap']),
  join(root, 'bin', 'test-times.js'),
].flatMap((r) => [`--test-reporter=${r}`, '--test-reporter-destination=stdout']);

/**
 * The processes to start, in order, as lists of files. A test file that needs brokers runs in a
 * process of its own. The others run a folder to a process (a process costs about 0.5 s of CPU
 * before its first test: node, tsx, and the harness modules every file imports again; the unit
 * tier had 75 of them), except where the remembered times (bin/test-times.js) say a folder would
 * take longer than its share (the whole phase's time over the processes at once, 10 s at least):
 * then it is cut into chunks of at most that share, the slowest files first. On more cores the
 * longest folder would otherwise set the phase's floor. The processes start slowest first,
 * so a long one does not start last. A file with no remembered time counts 1 s; with none at all
 * (a fresh machine) nothing is cut.
 */
const UNKNOWN_MS = 1000;
/** A process is worth its start-up only for this much work: no share is smaller. */
const MIN_SHARE_MS = 10_000;
function plan(list, concurrency) {
  if (args.includes('--isolated')) return list.map((f) => [f]);
  const known = readTimes();
  const est = (f) => known[f] ?? UNKNOWN_MS;
  const sum = (group) => group.reduce((t, f) => t + est(f), 0);
  const share = Math.max(MIN_SHARE_MS, sum(list) / concurrency);
  const byFolder = new Map();
  for (const f of list) {
    if (needsBrokers(f)) byFolder.set(f, [f]);
    else byFolder.set(dirname(f), [...(byFolder.get(dirname(f)) ?? []), f]);
  }
  const groups = [...byFolder.values()].flatMap((group) => {
    if (concurrency === 1 || Object.keys(known).length === 0 || sum(group) <= share) return [group];
    const chunks = [];
    for (const f of [...group].sort((a, b) => est(b) - est(a))) {
      const fits = chunks.find((c) => sum(c) + est(f) <= share);
      if (fits) fits.push(f);
      else chunks.push([f]);
    }
    return chunks.map((c) => c.sort());
  });
  // Stable: equal estimates keep the files' order.
  return concurrency === 1 ? groups : groups.sort((a, b) => sum(b) - sum(a));
}

/**
 * The files to hand node's runner: a process of one file is that file; one of several is an
 * entry that imports them one after another, each inside a suite named after its path (its
 * tests, hooks and top-level awaits stay in that suite, and its tests run after the previous
 * file's). Files sharing a process: a test that changes process-wide state (env, cwd, exit code)
 * puts it back.
 */
function batches(groups, dir) {
  return groups.map((group, i) => {
    if (group.length === 1) return group[0];
    const entry = join(dir, `${dirname(group[0]).replaceAll('/', '~')}.${i}.test.mjs`);
    // One import at a time: a file's tests and hooks join the suite whose import is under way,
    // so two files loading at once could put one's tests in the other's suite.
    writeFileSync(entry, [
      `// ${group.length} test files of ${dirname(group[0])}/, one process (bin/run-tests.js).`,
      "import { describe } from 'node:test';",
      `for (const [name, file] of ${JSON.stringify(group.map((f) => [f, join(root, f)]))}) {`,
      '  await new Promise((loaded) => describe(name, () => import(file).finally(loaded)));',
      '}',
      '',
    ].join('\n'));
    return entry;
  });
}

/**
 * One temporary folder for the whole run, handed to every test and every process it starts as
 * TMPDIR (os.tmpdir() reads it), and removed at the end: a test that forgets its own clean-up,
 * or a process killed mid-write, leaves nothing in /tmp. When a test failed it is kept for
 * inspection, named on the console, until the next run (its name carries the pid of the run
 * that made it; a folder whose run is gone is removed at the next start).
 */
function runTempDir() {
  const base = tmpdir();
  for (const name of readdirSync(base)) {
    const m = /^convoy-tests-(\d+)-/.exec(name);
    if (m && !pidAlive(Number(m[1]))) rmSync(join(base, name), { recursive: true, force: true });
  }
  const dir = mkdtempSync(join(base, `convoy-tests-${process.pid}-`));
  keepTsxCache(base, dir);
  return dir;
}

/**
 * tsx keeps the files it has compiled in <tmpdir>/tsx-<uid>, so under the run's own TMPDIR every
 * test process would compile every test and harness module again (the cache would start empty
 * at each run). The run's folder gets a link to the usual one instead; removing the folder
 * removes the link, never the cache.
 */
function keepTsxCache(base, dir) {
  const name = `tsx-${process.geteuid?.() ?? userInfo().username}`;
  try {
    mkdirSync(join(base, name), { recursive: true });
    symlinkSync(join(base, name), join(dir, name));
  } catch {
    /* without it tsx only compiles again */
  }
}

for (const p of phases) p.groups = plan(p.files, p.concurrency);
// `--list`: the plan, a line per file, the files of one process together after a blank line.
if (args.includes('--list')) {
  for (const [i, p] of phases.entries()) console.log(`# phase ${i + 1}: ${p.concurrency} at once\n${p.groups.map((g) => g.join('\n')).join('\n\n')}`);
  process.exit(0);
}

// Tests run from the sources; the processes they start (workers, reapers, the CLI) from the
// compiled tree, built once here (bin/compiled-tree.js).
const tree = await compiledTree();
const testTmp = runTempDir();
const env = { ...process.env, TMPDIR: testTmp, ...(tree ? { CONVOY_COMPILED_TREE: tree } : {}) };
const batchDir = mkdtempSync(join(testTmp, 'convoy-test-batches-'));
let failed = false;
try {
  for (const [i, phase] of phases.entries()) {
    if (phases.length > 1) console.log(`# phase ${i + 1} of ${phases.length}: ${phase.files.length} test files ${i === 0 ? 'that need no broker' : 'that start real brokers, one at a time'}`);
    const r = spawnSync(process.execPath, ['--import', 'tsx/esm', '--test', `--test-concurrency=${phase.concurrency}`, ...reporters, ...batches(phase.groups, batchDir)], { cwd: root, stdio: 'inherit', env });
    if (r.status !== 0) failed = true;
  }
} finally {
  if (!failed) rmSync(testTmp, { recursive: true, force: true });
  else {
    rmSync(batchDir, { recursive: true, force: true });
    console.error(`the tests' temporary files are kept for inspection until the next run: ${testTmp}`);
  }
}
process.exit(failed ? 1 : 0);
