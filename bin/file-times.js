// A node:test reporter that prints each test file's wall time (its process's start to its end,
// tsx start-up included), slowest first, and their sum: where the suite's time goes.
// bin/run-tests.js adds it with `--times`.
export default async function* fileTimes(source) {
  const started = new Map();
  const took = [];
  for await (const event of source) {
    const { name, file, nesting } = event.data ?? {};
    // A file's own test (its name is its path) is dequeued when its process starts.
    if (nesting !== 0 || !file || name !== file) continue;
    if (event.type === 'test:dequeue') started.set(file, performance.now());
    if (event.type === 'test:complete' && started.has(file)) took.push([file, performance.now() - started.get(file)]);
  }
  took.sort((a, b) => b[1] - a[1]);
  const cwd = process.cwd() + '/';
  const lines = took.map(([file, ms]) => `${(ms / 1000).toFixed(1).padStart(6)} s  ${file.replace(cwd, '')}`);
  const sum = took.reduce((s, [, ms]) => s + ms, 0);
  yield `\nwall time per test file (${took.length} files, sum ${(sum / 1000).toFixed(1)} s):\n${lines.join('\n')}\n`;
}
