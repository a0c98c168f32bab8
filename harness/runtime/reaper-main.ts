/**
 * The reaper: a small detached process that outlives its harness only to clean up after it
 * (after testcontainers' Ryuk). The harness holds the write end of this process's stdin and
 * sends one JSON line per process group it starts (`watch`), stops (`forget`) or leaves
 * running on purpose (`spare`: a `convoy brokers up` broker once it is recorded). When the
 * pipe reads EOF (the harness exited, however it died) or the harness's pid is gone, every
 * watched group still running is stopped (verified by start time, see proc.ts), and the
 * reaper exits; a group watched with a scratch folder (`remove`) has it removed then. Its ledger file lets `convoy clean` finish the job should the reaper itself
 * be killed.
 *
 * argv: <ledger file>
 */
import { appendFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { dirname, join } from 'node:path';
import { startTime, stopGroups, type OwnedGroup } from './proc.ts';

type Line =
  | { op: 'owner'; pid: number; start: number }
  | { op: 'watch'; pid: number; start: number; name: string; remove?: string }
  | { op: 'forget' | 'spare'; pid: number };

const ledger = process.argv[2]!;
const watched = new Map<number, OwnedGroup>();
let owner: { pid: number; start: number } | undefined;
let reaping = false;

/** Written whole, then renamed: `convoy clean` never reads half a ledger. */
function save(): void {
  const tmp = `${ledger}.tmp`;
  writeFileSync(tmp, JSON.stringify({ owner, reaper: { pid: process.pid, start: startTime(process.pid) }, watched: [...watched.values()] }));
  renameSync(tmp, ledger);
}

function apply(line: string): void {
  let m: Line;
  try {
    m = JSON.parse(line) as Line;
  } catch {
    return;
  }
  if (m.op === 'owner') owner = { pid: m.pid, start: m.start };
  else if (m.op === 'watch') watched.set(m.pid, { pid: m.pid, start: m.start, name: m.name, ...(m.remove ? { remove: m.remove } : {}) });
  else watched.delete(m.pid);
  save();
}

async function reap(why: string): Promise<void> {
  if (reaping) return;
  reaping = true;
  const stopped = await stopGroups([...watched.values()]);
  // A stopped group's scratch folder (a temporary database's data) goes with it.
  for (const g of watched.values()) if (g.remove && isAbsolute(g.remove)) rmSync(g.remove, { recursive: true, force: true });
  if (stopped.length > 0) {
    const what = stopped.map((s) => `${s.group.name} (pid ${s.group.pid}${s.pids.length > 1 ? ` +${s.pids.length - 1}` : ''})`).join(', ');
    appendFileSync(join(dirname(ledger), 'reaped.log'), `${new Date().toISOString()} convoy pid ${owner?.pid ?? '?'} ${why}: stopped ${what}\n`);
  }
  rmSync(ledger, { force: true });
  rmSync(`${ledger}.tmp`, { force: true });
  process.exit(0);
}

// Signals meant for the harness's terminal or group are not for the reaper.
for (const sig of ['SIGINT', 'SIGHUP', 'SIGPIPE'] as const) process.on(sig, () => {});
process.on('SIGTERM', () => void reap('reaper stopped'));

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buffered += chunk;
  let i: number;
  while ((i = buffered.indexOf('\n')) >= 0) {
    apply(buffered.slice(0, i));
    buffered = buffered.slice(i + 1);
  }
});
process.stdin.on('end', () => void reap('exited'));
process.stdin.on('error', () => void reap('exited'));
// A second way to notice: the owner's pid is gone or is another process now.
setInterval(() => {
  if (owner && startTime(owner.pid) !== owner.start) void reap('is gone');
}, 1_000);
save();
