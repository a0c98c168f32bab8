#!/usr/bin/env node
// Runs the test suite with node's test runner: every test/**/*.test.ts and every broker's own
// brokers/<name>/test/**/*.test.ts, in the plan of bin/test-plan.js: first the files that need no
// broker, two processes per processor, then those that need real brokers, one file at a time,
// with each broker set-up the files share started once (`convoy brokers hold`) and stopped after
// its last file. Ends with a timing summary (bin/test-summary.js), whatever the result.
//
// `--unit` runs only the files that need nothing installed; `--list` prints the plan (phases,
// held brokers, and the files of each process) instead of running it; `--times` adds each
// process's wall time; `--isolated` runs a file to a process in the first phase too. Extra
// arguments are file filters.
import './node-guard.js'; // a supported Node, or this runs again on one
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { availableParallelism, loadavg, tmpdir, userInfo } from 'node:os';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { compiledTree } from './compiled-tree.js';
import { pidAlive } from './pid-alive.js';
import { watchProgress } from './stall-watch.js';
import { NeedsError, ROOT as root, allTestFiles, holdSteps, lanesOf, phases as planPhases } from './test-plan.js';
import { readRecord, startClock, summaryLines } from './test-summary.js';

const startedAtMs = Date.now();
/** A run started by a test of this runner (the outer run's record is in its environment). */
const nested = Boolean(process.env.CONVOY_TEST_RECORD);
const loadStart = loadavg()[0];
const args = process.argv.slice(2);
const filters = args.filter((a) => !a.startsWith('--'));
let files = allTestFiles();
if (filters.length) files = files.filter((f) => filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Tests that need no broker share nothing (each has its own temporary folders, ports and cache).
// Their processes spend most of their time waiting on runs (a memory-broker run's clock, not its
// CPU), so two per core: 458 unit tests took 217 s wall at 2 processes, 140 s at 4 and 134 s at 6
// on 2 cores, with the same CPU. CONVOY_TEST_CONCURRENCY overrides.
const unitConcurrency = Number(process.env.CONVOY_TEST_CONCURRENCY ?? 2 * availableParallelism());
// The second phase's lanes (bin/test-plan.js lanesOf): one more than the cores, three at most.
// Its files wait on their runs most of the time: one at a time the host's CPU was 24% busy, two
// lanes 49% (a fresh machine, quiet). Three lanes of different brokers passed every file with
// three other jobs loading the machine (load 3 to 18). CONVOY_TEST_BROKER_LANES overrides (1: one
// file at a time).
const brokerLanes = Number(process.env.CONVOY_TEST_BROKER_LANES ?? Math.min(3, availableParallelism() + 1));
let phases;
try {
  phases = planPhases(files, { unitOnly: args.includes('--unit'), unitConcurrency, isolated: args.includes('--isolated') });
} catch (err) {
  if (!(err instanceof NeedsError)) throw err;
  console.error(err.message);
  process.exit(2);
}

// `--list`: the plan, a line per file, the files of one process together after a blank line; in
// the second phase, the brokers each segment holds.
if (args.includes('--list')) {
  for (const [i, p] of phases.entries()) {
    console.log(`# phase ${i + 1}: ${p.groups ? `${p.concurrency} at once` : `a file at a time${brokerLanes > 1 ? ` in each of up to ${brokerLanes} lanes` : ''}`}`);
    if (p.groups) console.log(p.groups.map((g) => g.join('\n')).join('\n\n'));
    else {
      const { alone, lanes } = lanesOf(p.segments, brokerLanes);
      if (alone) console.log(`## holding nothing\n${alone.files.join('\n')}`);
      for (const [l, lane] of lanes.entries()) {
        for (const seg of lane) console.log(`## ${lanes.length > 1 ? `lane ${l + 1}, ` : ''}holding ${seg.hold.join(', ') || 'nothing, beside the others'}\n${seg.files.join('\n')}`);
      }
    }
  }
  process.exit(0);
}

// The usual report (node's default: spec on a terminal, TAP otherwise); `--times` adds each
// process's wall time, slowest first; every run remembers the files' times for the next one's
// plan and this run's figures for its summary.
// Fails a file fast when a handle it left open keeps its process alive after its tests.
const exitGuard = pathToFileURL(join(root, 'bin', 'test-exit-guard.js')).href;
const reporters = [
  ...(args.includes('--times') ? ['spec', join(root, 'bin', 'file-times.js')] : [process.stdout.isTTY ? 'spec' : 'tap']),
  join(root, 'bin', 'test-times.js'),
].flatMap((r) => [`--test-reporter=${r}`, '--test-reporter-destination=stdout']);

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

/**
 * Runs node's test runner on `list` at `concurrency`; resolves true when every test passed. With
 * `buffered`, its report is printed whole when it ends (a lane beside another would interleave
 * its lines with the other's).
 */
const STALL_MS = Number(process.env.CONVOY_TEST_STALL_MS ?? 600_000);
async function runNodeTests(list, concurrency, { extraEnv = {}, buffered = false } = {}) {
  const args = ['--import', 'tsx/esm', '--import', exitGuard, '--test', `--test-concurrency=${concurrency}`, ...reporters, ...list];
  const child = spawn(process.execPath, args, { cwd: root, stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: { ...env, ...extraEnv } });
  const out = [];
  if (buffered) for (const s of [child.stdout, child.stderr]) s.on('data', (d) => out.push(d));
  // No test finished for 10 minutes (the longest test takes about 3): the hung file is stopped and fails.
  const unwatch = watchProgress({ file: progress, rootPid: child.pid, idleMs: STALL_MS, say: (line) => (buffered ? out.push(Buffer.from(line + '\n')) : console.log(line)) });
  const [code] = await once(child, 'exit');
  unwatch();
  if (buffered) process.stdout.write(Buffer.concat(out));
  return code === 0;
}

/**
 * A lane of the second phase: its segments one after another, each with its brokers held. A lane
 * keeps its brokers' records in a folder of its own (CONVOY_INSTANCES), so two lanes may each
 * hold a broker of one kind (bin/test-plan.js splits a broker's files so when they are many).
 */
async function runLane(segments, buffered, lane = 0) {
  const steps = holdSteps(segments);
  const laneEnv = lane ? { CONVOY_INSTANCES: join(testTmp, 'instances', `lane-${lane}`) } : {};
  const id = (name) => (lane ? `${name} (lane ${lane})` : name);
  let ok = true;
  for (const [j, seg] of segments.entries()) {
    for (const name of steps[j].start) held.set(id(name), await hold(name, laneEnv, id(name)));
    for (const name of seg.hold) held.get(id(name)).files += seg.files.length;
    if (!(await runNodeTests(seg.files, 1, { buffered, extraEnv: laneEnv }))) ok = false;
    for (const name of steps[j].stop) await stopHeld(id(name));
  }
  return ok;
}

/**
 * A broker held for the second phase's files: `convoy brokers hold <name>`, up until its standard
 * input closes. Its instance record goes to the run's own folder (CONVOY_INSTANCES), so the
 * tests' runs reuse it and nothing outside this run sees it. If it cannot start, the files that
 * need it still run (each starting brokers of its own, and failing with the broker's reason).
 */
const HOLD_START_MS = 300_000;
async function hold(name, extraEnv = {}, label = name) {
  const t = performance.now();
  const child = spawn(process.execPath, [join(root, 'bin', 'convoy.js'), 'brokers', 'hold', name], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'], env: { ...env, ...extraEnv } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = once(child, 'exit');
  // A broker's own start has its own bounds; this one only keeps a stuck holder from hanging the run.
  let bound;
  const up = await Promise.race([
    new Promise((ok) => child.stdout.on('data', () => /^holding /m.test(out) && ok(true))),
    exited.then(() => false),
    new Promise((ok) => (bound = setTimeout(() => ok(false), HOLD_START_MS))),
  ]);
  clearTimeout(bound);
  if (!up && child.exitCode === null) {
    child.kill('SIGTERM');
    out += `\nno broker held after ${HOLD_START_MS / 1000} s`;
  }
  const startS = (performance.now() - t) / 1000;
  if (!up) console.log(`# could not hold ${label} for the tests that share it (they start their own): ${out.trim().split('\n').at(-1)}`);
  else console.log(`# holding ${label} (up in ${startS.toFixed(1)} s)`);
  return {
    name: label,
    startS,
    files: 0,
    upSince: performance.now(),
    async stop() {
      if (child.exitCode !== null) return;
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGTERM'), 60_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// Tests run from the sources; the processes they start (workers, reapers, the CLI) from the
// compiled tree, built once here (bin/compiled-tree.js).
const tree = await compiledTree();
const testTmp = runTempDir();
const record = join(testTmp, 'test-record.jsonl');
const progress = join(testTmp, 'test-progress');
const env = {
  ...process.env,
  TMPDIR: testTmp,
  CONVOY_TEST_RECORD: record,
  CONVOY_TEST_PROGRESS: progress,
  CONVOY_INSTANCES: join(testTmp, 'instances'),
  ...(tree ? { CONVOY_COMPILED_TREE: tree } : {}),
};
const batchDir = mkdtempSync(join(testTmp, 'convoy-test-batches-'));
let failed = false;
const measured = [];
const heldLog = [];
const held = new Map();
try {
  for (const [i, phase] of phases.entries()) {
    if (phases.length > 1) console.log(`# phase ${i + 1} of ${phases.length}: ${phase.files.length} test files ${phase.kind === 'unit' ? 'that need nothing' : 'that need brokers or programs'}`);
    const clock = startClock();
    if (phase.groups) {
      // A file here said it needs nothing: a broker it starts anyway fails it (harness/broker/registry.ts).
      if (!(await runNodeTests(batches(phase.groups, batchDir), phase.concurrency, { extraEnv: { CONVOY_NO_BROKERS: '1' } }))) failed = true;
    } else {
      const { alone, lanes } = lanesOf(phase.segments, brokerLanes);
      if (alone && !(await runLane([alone], false))) failed = true;
      if (lanes.length > 1) console.log(`# ${lanes.length} lanes at once, each printed when its broker's files are done: ${lanes.map((l) => l.flatMap((seg) => seg.hold).join(' + ')).join('; ')}`);
      const results = await Promise.all(lanes.map((lane, l) => runLane(lane, lanes.length > 1, lanes.length > 1 ? l + 1 : 0)));
      if (results.includes(false)) failed = true;
    }
    measured.push({ kind: phase.kind, files: phase.files.length, ...clock() });
  }
} finally {
  for (const name of [...held.keys()]) await stopHeld(name);
  const { counts, files: times } = readRecord(record);
  console.log(summaryLines({ phases: measured, held: heldLog, record: { counts, files: times }, loadStart, startedAtMs, nested }).join('\n'));
  // The plain closing line, for the whole run (node's runner printed one per process it ran).
  console.log(`${counts.pass} passed, ${counts.fail + counts.cancelled} failed${counts.skipped + counts.todo ? `, ${counts.skipped + counts.todo} skipped` : ''}`);
  if (!failed) rmSync(testTmp, { recursive: true, force: true });
  else {
    rmSync(batchDir, { recursive: true, force: true });
    console.error(`the tests' temporary files are kept for inspection until the next run: ${testTmp}`);
  }
}

async function stopHeld(name) {
  const h = held.get(name);
  held.delete(name);
  await h.stop();
  heldLog.push({ name, startS: h.startS, upS: (performance.now() - h.upSince) / 1000, files: h.files });
}
process.exit(failed ? 1 : 0);
