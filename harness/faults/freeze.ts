import { existsSync, readFileSync, statSync } from 'node:fs';
import { nowMicros } from '../clock.ts';
import type { FaultKind } from './contract.ts';
import { CONSUMER_FIELD, checkConsumerName, consumerNamed, endInWorker, startInWorker, workerState } from './contract.ts';
import { signalOwnGroup } from '../workers/own-group.ts';

const WHILE_FROZEN_MS = 1_000;
/** How long the process has to stop itself before the runner stops it from outside. */
const STOP_ITSELF_MS = 2_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** SQLite's WAL write lock: an exclusive lock on this byte of the -shm file (WALINDEX_LOCK_OFFSET). */
const WAL_WRITE_LOCK_BYTE = 120;

/**
 * Whether the stopped process `pid` holds the state store's write lock, as the kernel's table of
 * file locks says (/proc/locks): SQLite takes it as an exclusive POSIX lock, on byte 120 of the
 * -shm file in WAL mode (the store's) or on the database file itself otherwise. `held` means
 * every consumer that writes waits for the freeze to end. Asking SQLite instead (a write
 * transaction begun without waiting) cannot tell whose lock it is: another consumer's group
 * commit of a millisecond read as `held` (a unit-tier failure).
 */
export function storeLock(file: string, pid: number): string {
  try {
    const inodes = new Map<number, 'db' | 'shm'>([[statSync(file).ino, 'db']]);
    if (existsSync(`${file}-shm`)) inodes.set(statSync(`${file}-shm`).ino, 'shm');
    for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
      // "1: POSIX  ADVISORY  WRITE 13634 fe:00:9981208 120 120" (a waiter's line has "->").
      const m = /^\d+:\s+POSIX\s+ADVISORY\s+WRITE\s+(\d+)\s+\S+:(\d+)\s+(\d+)\s+(\d+|EOF)\s*$/.exec(line);
      if (!m || Number(m[1]) !== pid) continue;
      const on = inodes.get(Number(m[2]));
      const end = m[4] === 'EOF' ? Infinity : Number(m[4]);
      if (on === 'db' || (on === 'shm' && Number(m[3]) <= WAL_WRITE_LOCK_BYTE && WAL_WRITE_LOCK_BYTE <= end)) return 'held';
    }
    return 'free';
  } catch (e) {
    return `unknown: ${(e as Error).message}`;
  }
}

/**
 * SIGSTOP one consumer process (no heartbeats at all), SIGCONT at the end.
 *
 * The process stops itself, at a point where it holds no lock on the run's state store. The
 * consumers share one SQLite file standing for the service's database, and SQLite locks the
 * whole file for a write: a process stopped inside its store transaction (a group commit is
 * open for most of a busy event-loop turn) would hold every other consumer in busy_timeout,
 * with its event loop blocked and its heartbeats missed. The fault would then stall the whole
 * group and blame the broker for it (a memory-broker run with ten 0.5 s freezes of a busy c1
 * stopped c2 for the whole window in 2 of them). A real database locks rows, not the file.
 * Only when the process does not stop itself within STOP_ITSELF_MS (its event loop is blocked)
 * does the runner stop it from outside; the evidence says which (`stoppedBy`), and whether the
 * store's write lock was free of it while the process was stopped (`storeLock`).
 */
const freeze: FaultKind = {
  kind: 'freeze',
  underTest: true,
  destructive: false,
  schema: { type: 'object', properties: { consumer: CONSUMER_FIELD }, required: ['consumer'] },
  doc: {
    summary: 'SIGSTOP one consumer process (and its client process) for the window, SIGCONT at its end: no handling and no heartbeats, as a long GC pause or a suspended VM. The process stops itself where it holds no lock on the shared state store.',
    notes: 'With a consumer under test (consumers.service) it acts on the service\'s process and everything it runs (docs/consumer-under-test.md).',
    example: '{ name: freeze-c1, kind: freeze, consumer: c1, atMs: 3s, durationMs: 5s }',
  },
  check: (spec, scope) => checkConsumerName(`${scope.path}.consumer`, spec.consumer, scope),
  async start(spec, ctx) {
    const w = consumerNamed(ctx, spec.consumer);
    const began = performance.now();
    const describe = async () => (ctx.admin.describeConsumerGroup ? await ctx.admin.describeConsumerGroup().catch((e: Error) => ({ error: e.message })) : undefined);
    const group = await describe();
    // `until`: a start message read later (the process was stopped from outside and resumed)
    // must not stop it again. The runner waits a margin beyond it before it steps in.
    const until = Date.now() + STOP_ITSELF_MS;
    startInWorker(w, 'freeze', { until });
    let stoppedBy: 'itself' | 'runner' = 'itself';
    while (workerState(w) !== 'T') {
      if (Date.now() >= until + 500) {
        stoppedBy = 'runner';
        w.signal('SIGSTOP');
        await sleep(50);
        break;
      }
      await sleep(5);
    }
    // When the runner saw the process stopped (polled every 5 ms), on the run clock, and how long
    // after the fault began (the group read first, then the request, which the process reads
    // between two event-loop turns: later on a busy machine). From here until SIGCONT the
    // process runs nothing.
    const stoppedAtUs = nowMicros();
    const stoppedAfterMs = Math.round(performance.now() - began);
    let ended = false;
    return {
      evidence: { consumer: w.id, pid: w.pid, state: workerState(w), stoppedBy, stoppedAtUs, stoppedAfterMs, storeLock: w.where ? `unknown: on agent ${w.where}` : w.pid ? storeLock(ctx.storeFile, w.pid) : 'unknown: no process', group },
      async end() {
        if (ended) return undefined;
        ended = true;
        // The group as the freeze left it, read before the process resumes: once resumed, it
        // rejoins within moments and may take its partitions back (read after, as `group`).
        // At most 1 s: the read lengthens the freeze, and a control twin's freeze must stay
        // inside the session timeout.
        const whileFrozen = await Promise.race([describe(), sleep(WHILE_FROZEN_MS).then(() => ({ error: `no answer within ${WHILE_FROZEN_MS} ms` }))]);
        w.signal('SIGCONT');
        endInWorker(w, 'freeze');
        await sleep(50);
        // Belt and braces: a process that stopped itself after all (it read the start message
        // just inside `until` and was then descheduled) is resumed too.
        if (workerState(w) === 'T') {
          w.signal('SIGCONT');
          await sleep(50);
        }
        return { state: workerState(w), whileFrozen, group: await describe() };
      },
    };
  },
  worker: {
    consumer(args, side) {
      if (Date.now() >= Number(args.until)) {
        side.log('freeze: the start message came too late; the runner stopped this process from outside');
        return {};
      }
      side.flushHistory();
      // Its client process too (client: java): a frozen service's client sends no heartbeat either.
      signalOwnGroup('SIGSTOP');
      // Running again: SIGCONT came. The runner's end message removes this (empty) effect.
      return {};
    },
  },
};
export default freeze;
