#!/usr/bin/env node
// Runs the test suite with node's test runner: every test/**/*.test.ts and every broker's own
// brokers/<name>/test/**/*.test.ts, one file at a time when any of them starts real brokers (two
// at once on a 2-core machine would make them flaky), and one file per processor when none does. `--unit` runs only the tests that
// need no broker; `--list` prints the chosen files instead of running them; `--times` adds each file's wall time. Extra arguments are file filters. No list names brokers or folders: a test
// needs brokers when it sits in a broker's folder (brokers/<name>/test/ or test/<name>/, a name
// from brokers/), or in a folder that says so with a NEEDS-BROKERS file (its text says why);
// a broker that runs inside the test process says so with brokers/<name>/test/IN-PROCESS.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { availableParallelism } from 'node:os';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
if (args.includes('--list')) {
  console.log(files.join('\n'));
  process.exit(0);
}
// Tests that need no broker share nothing (each has its own temporary folders, ports and cache).
const concurrency = files.some(needsBrokers) ? 1 : availableParallelism();
// `--times` adds each file's wall time, slowest first, after the usual report.
const times = args.includes('--times') ? ['--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=${join(root, 'bin', 'file-times.js')}`, '--test-reporter-destination=stdout'] : [];
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...times, ...files], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
