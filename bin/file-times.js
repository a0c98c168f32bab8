// A node:test reporter that prints each test process's wall time (its start to its end, tsx
// start-up included), slowest first, and their sum: where the suite's time goes. A process that
// runs a folder's files (bin/run-tests.js) is listed with each of its files' own times below it.
// bin/run-tests.js adds it with `--times`.
export default async function* fileTimes(source) {
  const started = new Map();
  const took = [];
  /** Files run inside a folder's process, by that process's entry file. */
  const inside = new Map();
  for await (const event of source) {
    const { name, file, nesting, details } = event.data ?? {};
    if (!file) continue;
    // A file inside a folder's process is a suite named after its (relative) path.
    if (nesting === 0 && event.type === 'test:complete' && name !== file && name.endsWith('.test.ts')) {
      inside.set(file, [...(inside.get(file) ?? []), [name, details?.duration_ms ?? 0]]);
    }
    // A process's own test (its name is its path) is dequeued when its process starts.
    if (nesting !== 0 || name !== file) continue;
    if (event.type === 'test:dequeue') started.set(file, performance.now());
    if (event.type === 'test:complete' && started.has(file)) took.push([file, performance.now() - started.get(file)]);
  }
  took.sort((a, b) => b[1] - a[1]);
  const cwd = process.cwd() + '/';
  const line = (ms, what, indent = '') => `${indent}${(ms / 1000).toFixed(1).padStart(6)} s  ${what}`;
  // A folder's process runs from a generated entry file (test~runner.3.test.mjs is test/runner/).
  const label = (file) => (file.includes('/convoy-test-batches-') ? `${file.split('/').pop().replace(/(\.\d+)?\.test\.mjs$/, '').replaceAll('~', '/')}/ (one process)` : file.replace(cwd, ''));
  const lines = took.flatMap(([file, ms]) => [
    line(ms, label(file)),
    ...(inside.get(file) ?? []).sort((a, b) => b[1] - a[1]).map(([name, fileMs]) => line(fileMs, name, '    ')),
  ]);
  const sum = took.reduce((s, [, ms]) => s + ms, 0);
  const files = took.length + [...inside.values()].reduce((n, l) => n + l.length - 1, 0);
  yield `\nwall time per test process (${took.length} processes, ${files} files, sum ${(sum / 1000).toFixed(1)} s):\n${lines.join('\n')}\n`;
}
