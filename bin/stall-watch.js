// A watchdog for node's test runner: when no test has finished for `idleMs` (the progress file,
// one byte per finished test from convoy's reporter, has not grown), the test files' processes under
// `rootPid` are stopped (SIGKILL), so node's runner reports them failed and goes on. A file that
// passed its tests and then left a handle open would otherwise hold the suite until CI's limit.
import { readdirSync, readFileSync, statSync } from 'node:fs';

/** The processes below `rootPid` whose command line names a test file. */
export function testFileProcesses(rootPid) {
  const parent = new Map();
  const cmd = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      cmd.set(Number(d), readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0'));
    } catch {
      /* gone */
    }
  }
  const below = (pid) => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === rootPid) return true;
    return false;
  };
  return [...cmd.entries()]
    .filter(([pid, argv]) => below(pid) && argv.some((a) => /\.test\.[cm]?[jt]s$/.test(a)))
    .map(([pid, argv]) => ({ pid, file: argv.find((a) => /\.test\.[cm]?[jt]s$/.test(a)) }));
}

const sizeOf = (file) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

export function watchProgress({ file, rootPid, idleMs, pollMs = Math.min(15_000, idleMs / 4), say = (line) => console.log(line) }) {
  let size = sizeOf(file);
  let since = Date.now();
  const timer = setInterval(() => {
    const now = sizeOf(file);
    if (now !== size) {
      size = now;
      since = Date.now();
      return;
    }
    if (Date.now() - since < idleMs) return;
    since = Date.now();
    for (const p of testFileProcesses(rootPid)) {
      say(`# no test finished for ${Math.round(idleMs / 1000)} s: stopping ${p.file} (pid ${p.pid}); it fails`);
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }, pollMs);
  timer.unref();
  return () => clearInterval(timer);
}
