// Loaded into every test file's process: once the file's tests and its `after` hooks are done,
// a process still running after the grace time (default 120 s; CONVOY_TEST_EXIT_GRACE_MS) is
// held open by a handle a test left behind (a socket, a child, a client library's timer). It then
// says which kinds of handle and exits 1, so the file fails in minutes and names the cause,
// rather than waiting for the runner's ten-minute watchdog. The timer is unreferenced: a process
// that ends by itself never sees it.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const nodeTest = createRequire(import.meta.url)('node:test');
const graceMs = Number(process.env.CONVOY_TEST_EXIT_GRACE_MS ?? 120_000);

// The guard's own hook runs before the file's; so the file's `after` hooks are counted while they
// run, and the grace time starts again when the last one ends (however long a broker takes to stop).
let hooksRunning = 0;
let timer;
const arm = () => {
  clearTimeout(timer);
  timer = setTimeout(judge, graceMs).unref();
};
const after = nodeTest.after;
nodeTest.after = (fn, options) =>
  after(async (...args) => {
    hooksRunning++;
    try {
      return await fn(...args);
    } finally {
      if (--hooksRunning === 0 && timer) arm();
    }
  }, options);
syncBuiltinESMExports();

function judge() {
  if (hooksRunning > 0) return;
  const open = process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap');
  process.stderr.write(
    `# every test in this file finished, but its process was still running ${Math.round(graceMs / 1000)} s later, held by: ${open.join(', ') || 'nothing node can name'}; it fails\n`,
  );
  process.exit(1);
}

after(arm);
