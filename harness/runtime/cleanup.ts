/**
 * Clean-up owned by the harness process: every process convoy starts and every fault it
 * applies registers its undo here, so Ctrl-C, a failed run or a crash of the harness leaves
 * nothing behind. Async undos run on signals and on normal teardown; process groups are also
 * killed synchronously on 'exit' as a last resort.
 */
type Undo = { name: string; run: () => Promise<void> | void };

const undos = new Map<number, Undo>();
const ownedGroups = new Set<number>();
let nextId = 1;
let installed = false;
let running: Promise<void> | undefined;

export function onCleanup(name: string, run: Undo['run']): () => void {
  install();
  const id = nextId++;
  undos.set(id, { name, run });
  return () => undos.delete(id);
}

/** A process group (pgid) to kill with SIGKILL if the harness exits without stopping it. */
export function ownProcessGroup(pgid: number): () => void {
  install();
  ownedGroups.add(pgid);
  return () => ownedGroups.delete(pgid);
}

/** Runs every registered undo, newest first; errors are reported, never thrown. */
export function runCleanup(log: (line: string) => void = (l) => process.stderr.write(l + '\n')): Promise<void> {
  running ??= (async () => {
    const list = [...undos.entries()].reverse();
    for (const [id, undo] of list) {
      undos.delete(id);
      try {
        await undo.run();
      } catch (err) {
        log(`clean-up "${undo.name}" failed: ${(err as Error).message}`);
      }
    }
  })().finally(() => {
    running = undefined;
  });
  return running;
}

function killOwnedGroupsNow(): void {
  for (const pgid of ownedGroups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  ownedGroups.clear();
}

let signalled = 0;
function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', killOwnedGroupsNow);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      signalled++;
      if (signalled > 1) {
        process.stderr.write(`\nsecond ${sig}: killing everything convoy started and exiting now\n`);
        killOwnedGroupsNow();
        process.exit(130);
      }
      process.stderr.write(`\n${sig}: stopping workers and brokers, keeping the partial history (again to force)\n`);
      interruptListeners.forEach((l) => l(sig));
      if (interruptListeners.size === 0) void runCleanup().finally(() => process.exit(130));
    });
  }
}

const interruptListeners = new Set<(sig: string) => void>();
/** A running command that wants to stop gracefully on Ctrl-C (and then clean up itself). */
export function onInterrupt(listener: (sig: string) => void): () => void {
  install();
  interruptListeners.add(listener);
  return () => interruptListeners.delete(listener);
}

const beforeExit = new Set<() => Promise<void>>();
/**
 * Work to finish before the harness exits on its own, after its command is done (idle worker
 * processes let go and waited for: harness/workers/pool.ts). Returns the function that removes it.
 */
export function beforeHarnessExit(finish: () => Promise<void>): () => void {
  beforeExit.add(finish);
  return () => beforeExit.delete(finish);
}

/** Runs what beforeHarnessExit registered (the CLI, before it exits). */
export async function finishBeforeExit(): Promise<void> {
  await Promise.all([...beforeExit].map((f) => f().catch(() => {})));
}
