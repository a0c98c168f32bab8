// Test files' wall times, remembered between runs: a node:test reporter that records each file's
// time, and the reader bin/run-tests.js plans with (the slowest first, the slow ones in a process
// of their own; Jest orders its files by their last times the same way). The file is
// <cache>/test-times.json, keyed by the file's path in the checkout; a missing or unreadable file
// only means no plan beyond the folders. CONVOY_TEST_TIMES names another file. With
// CONVOY_TEST_RECORD it also appends this run's own figures to that file (JSON lines: each file's
// time, and the runner's counts), for the run's timing summary (bin/test-summary.js).
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from './cache-dir.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export function timesFile() {
  return process.env.CONVOY_TEST_TIMES || join(cacheDir(), 'test-times.json');
}

function readJson(file) {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8'));
    return data && typeof data === 'object' ? data : {};
  } catch {
    return {};
  }
}

/**
 * Times measured on this 2-core machine, checked in: a fresh machine (CI's every run) has none
 * of its own, and without them the second phase's lanes are balanced by file counts alone (a
 * Kafka file takes minutes, a Pub/Sub one seconds). A file's own remembered time wins; a stale
 * figure here only balances worse. Rewritten from a whole run's times with
 * `node bin/test-times.js --baseline`.
 */
const BASELINE = join(ROOT, 'bin', 'test-times.baseline.json');

/**
 * The remembered times, in ms, by the file's path in the checkout (test/x/y.test.ts), over the
 * checked-in baseline (not under CONVOY_TEST_TIMES, which names a file of its own, as tests do).
 */
export function readTimes() {
  const own = readJson(timesFile());
  return process.env.CONVOY_TEST_TIMES ? own : { ...readJson(BASELINE), ...own };
}

/**
 * The reporter: a file run in its own process is a top-level test named after its absolute
 * path; a file run in a folder's process (bin/run-tests.js) is a top-level suite named after its
 * relative path. A new time is averaged with the remembered one, so one slow run moves the plan
 * only half way. It writes nothing to the run's output.
 */
export default async function* recordTimes(source) {
  const took = {};
  const counts = {};
  for await (const event of source) {
    // The runner's closing counts: "tests 12", "pass 12", "fail 0", ...
    const count = event.type === 'test:diagnostic' && /^(tests|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(event.data?.message ?? '');
    if (count) counts[count[1]] = Number(count[2]);
    if (event.type !== 'test:complete') continue;
    // One byte per finished test: bin/stall-watch.js reads progress from its size.
    if (process.env.CONVOY_TEST_PROGRESS) appendFileSync(process.env.CONVOY_TEST_PROGRESS, '.');
    const { name, file, nesting, details } = event.data ?? {};
    if (nesting !== 0 || !file || !name?.endsWith('.test.ts') || typeof details?.duration_ms !== 'number') continue;
    took[name.startsWith('/') ? relative(ROOT, name) : name] = details.duration_ms;
  }
  if (process.env.CONVOY_TEST_RECORD) {
    const lines = [...Object.entries(took).map(([file, ms]) => ({ file, ms: Math.round(ms) })), { counts }];
    appendFileSync(process.env.CONVOY_TEST_RECORD, lines.map((l) => JSON.stringify(l) + '\n').join(''));
  }
  if (Object.keys(took).length === 0) return;
  const times = readTimes();
  for (const [f, ms] of Object.entries(took)) times[f] = Math.round(times[f] === undefined ? ms : (times[f] + ms) / 2);
  try {
    const file = timesFile();
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(`${file}.${process.pid}`, JSON.stringify(times, null, 1));
    renameSync(`${file}.${process.pid}`, file);
  } catch {
    /* a cache we cannot write: the next run plans by folders only */
  }
  yield* [];
}

// `node bin/test-times.js --baseline`: the remembered times of the files that exist, to 0.1 s,
// written as the checked-in baseline.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--baseline')) {
  const times = readJson(timesFile());
  const kept = Object.fromEntries(Object.entries(times).filter(([f]) => existsSync(join(ROOT, f))).sort().map(([f, ms]) => [f, Math.round(ms / 100) * 100]));
  writeFileSync(BASELINE, JSON.stringify(kept, null, 1) + '\n');
  console.log(`${Object.keys(kept).length} files' times written to ${relative(ROOT, BASELINE)}`);
}
