#!/usr/bin/env node
// Runs the test suite with node's test runner: every test/**/*.test.ts, one file at a time
// (integration tests start real brokers; two at once on a 2-core machine would make them
// flaky). `--unit` runs only the tests that need no broker. Extra arguments are file filters.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const filters = args.filter((a) => !a.startsWith('--'));
/** Folders whose tests start brokers. */
const INTEGRATION = ['kafka', 'rabbitmq', 'servicebus', 'sqs', 'pubsub', 'runner', 'runtime', 'faults', 'report', 'suite', 'workers'];

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.test.ts') ? [p] : [];
  });
}

let files = walk(join(root, 'test')).map((f) => relative(root, f)).sort();
if (unitOnly) files = files.filter((f) => !INTEGRATION.includes(f.split('/')[1]));
if (filters.length) files = files.filter((f) => filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
