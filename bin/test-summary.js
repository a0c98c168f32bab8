// Where a test run's time went: printed at the end of every `./convoy test` (bin/run-tests.js),
// whatever the result, so a CI log shows it. Each phase's wall time as a share of its budget, and
// the host's CPU over it (from /proc/stat: brokers run detached, so a child's rusage would miss
// them); the time before the tests (the bootstrap's npm install, `convoy test`'s set-up); the
// brokers held; the slowest files. Each run's figures are kept in <cache>/test-runs.jsonl (the
// last 20), and the summary names the previous run's beside this one's.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { cacheDir } from './cache-dir.js';

/**
 * The suite's budget in seconds, on this 2-core machine, quiet: CI has 90 minutes and a slow CI
 * machine took 2.7 times as long, so the whole `.ci/run` on a fresh machine (installs included)
 * must stay under 1,500 s here, its real-broker phase under 1,000 s, and the unit phase about two
 * minutes.
 */
export const BUDGET_S = { unit: 120, brokers: 1000, all: 1500 };
const KEEP_RUNS = 20;
const SLOWEST = 15;

/** The host's CPU counters (all CPUs, in clock ticks): busy and total. */
export function hostCpu() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1, 9).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - f[3] - f[4], total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/** A phase's clock: wall time and the host's CPU from start() to the returned end(). */
export function startClock() {
  const t0 = performance.now();
  const c0 = hostCpu();
  return () => {
    const c1 = hostCpu();
    const wallS = (performance.now() - t0) / 1000;
    const share = c1.total > c0.total ? (c1.busy - c0.busy) / (c1.total - c0.total) : 0;
    // CPU seconds from the share, so no clock-tick rate is assumed.
    return { wallS, hostBusy: share, hostCpuS: share * availableParallelism() * wallS };
  };
}

/** What the reporter (bin/test-times.js) wrote for this run: each file's time, the counts. */
export function readRecord(file) {
  const files = {};
  const counts = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    /* no test ran */
  }
  for (const line of text.split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line);
    if (r.file) files[r.file] = r.ms;
    if (r.counts) for (const k of Object.keys(counts)) counts[k] += r.counts[k] ?? 0;
  }
  return { files, counts };
}

/** Seconds as a person reads them: tenths below 10 s, whole seconds with thousands separators above. */
const s = (x) => (x < 10 ? `${x.toFixed(1)} s` : `${Math.round(x).toLocaleString('en-US')} s`);
const pct = (x) => `${Math.round(x * 100)}%`;

/** Seconds since epoch ms `v` of an environment variable, when it is set and sane. */
function envMs(name) {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : undefined;
}

function previousRun() {
  try {
    const lines = readFileSync(join(cacheDir(), 'test-runs.jsonl'), 'utf8').trim().split('\n');
    return JSON.parse(lines.at(-1));
  } catch {
    return undefined;
  }
}

function remember(run) {
  try {
    const file = join(cacheDir(), 'test-runs.jsonl');
    mkdirSync(cacheDir(), { recursive: true });
    appendFileSync(file, JSON.stringify(run) + '\n');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    if (lines.length > KEEP_RUNS) writeFileSync(file, lines.slice(-KEEP_RUNS).join('\n') + '\n');
  } catch {
    /* a cache we cannot write: no history */
  }
}

/**
 * The summary's lines. `phases`: { kind, files, wallS, hostBusy, hostCpuS }; `held`: brokers held
 * in the second phase, { name, startS, upS, files }; `record`: readRecord()'s; `loadStart`: the
 * 1-minute load average when the run started; `nested`: a run started by a test, which keeps no
 * history (it would stand in the history as the suite's last run).
 */
export function summaryLines({ phases, held, record, loadStart, startedAtMs, nested }) {
  const cores = availableParallelism();
  // A run inside a test (of this runner) inherits the outer run's launch figures: they are not its own.
  const bootstrapMs = nested ? undefined : envMs('CONVOY_BOOTSTRAP_MS');
  const setupMs = nested ? undefined : envMs('CONVOY_SETUP_MS');
  const launchedMs = nested ? undefined : envMs('CONVOY_LAUNCHED_MS');
  const prev = previousRun();
  const lines = [`# timing: ${cores} cores, load average ${loadStart.toFixed(2)} at the start, ${loadavg()[0].toFixed(2)} at the end`];
  if (bootstrapMs !== undefined) lines.push(`#   bootstrap (npm packages)   ${s(bootstrapMs / 1000).padStart(8)}`);
  if (setupMs !== undefined) lines.push(`#   set-up (packages, jars)    ${s(setupMs / 1000).padStart(8)}`);
  const names = { unit: 'phase 1, no broker', brokers: 'phase 2, real brokers' };
  for (const p of phases) {
    const was = prev?.phases?.find((q) => q.kind === p.kind);
    lines.push(
      `#   ${`${names[p.kind]} (${p.files} files)`.padEnd(26)} ${s(p.wallS).padStart(8)}  ${pct(p.wallS / BUDGET_S[p.kind]).padStart(4)} of its ${s(BUDGET_S[p.kind])}` +
        `; host CPU ${pct(p.hostBusy)} busy, ${s(p.hostCpuS)} of CPU${was ? `; last run ${s(was.wallS)}` : ''}`,
    );
  }
  for (const h of held) lines.push(`#     held ${h.name}: started in ${h.startS.toFixed(1)} s, up ${s(h.upS)}, ${h.files} files`);
  const tests = phases.reduce((t, p) => t + p.wallS, 0);
  if (launchedMs !== undefined) {
    const all = (Date.now() - launchedMs) / 1000;
    lines.push(`#   in all, from ./convoy test   ${s(all).padStart(8)}  ${pct(all / BUDGET_S.all).padStart(4)} of its ${s(BUDGET_S.all)}${prev?.allS ? `; last run ${s(prev.allS)}` : ''}`);
  } else lines.push(`#   tests in all               ${s(tests).padStart(8)}`);
  const slow = Object.entries(record.files).sort((a, b) => b[1] - a[1]).slice(0, SLOWEST);
  if (slow.length) lines.push(`#   slowest files:`, ...slow.map(([f, ms]) => `#     ${(ms / 1000).toFixed(1).padStart(6)} s  ${f}`));
  if (!nested) remember({
    at: new Date(startedAtMs).toISOString(),
    cores,
    loadStart,
    bootstrapS: bootstrapMs && bootstrapMs / 1000,
    setupS: setupMs && setupMs / 1000,
    allS: launchedMs && (Date.now() - launchedMs) / 1000,
    phases: phases.map((p) => ({ kind: p.kind, files: p.files, wallS: +p.wallS.toFixed(1), hostBusy: +p.hostBusy.toFixed(3) })),
    held: held.map((h) => ({ name: h.name, startS: +h.startS.toFixed(1), upS: +h.upS.toFixed(1) })),
    counts: record.counts,
  });
  return lines;
}
