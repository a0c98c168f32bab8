/**
 * Checker benchmark: in-process events/s, offline lines/s from a file, and peak RSS
 * for 10M events over 1M keys. Each measurement runs in its own child process so that heap
 * and RSS figures are the checker's alone.
 *
 *   node --import tsx bench/checker.ts [--events 10000000] [--keys 1000000] [--in-process-events 10000000] [--typical-keys 10000]
 *   node --import tsx bench/checker.ts --child in-process <events> <keys>   (one figure, as JSON)
 *
 * In-process figures include the synthetic generator's CPU; `checkerOnlyPerCpuSecond` takes
 * out the generator's own CPU time, measured alone in the same child.
 *
 * Targets: >= 3M events/s in-process, >= 1M lines/s offline, peak RSS < 1 GiB. The in-process
 * target is judged at a typical run's key count (`typicalKeys`, 10k: the nightly scenarios use
 * 10 to 200) and, separately, at a million keys, where each event's key is a cache miss.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Checker } from '../harness/checker/checker.ts';
import { checkFile } from '../harness/checker/readFile.ts';

export interface CheckerBenchOptions {
  /** Events in the offline file (default 10M). */
  events?: number;
  /** Distinct keys (default 1M). */
  keys?: number;
  /** Events fed in-process (default: as many as `events`). */
  inProcessEvents?: number;
  /** Distinct keys of the second in-process figure, a typical run's count (default 10k). */
  typicalKeys?: number;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

export interface CheckerBenchResult {
  /** 1-minute load average and CPU count when the bench ran: figures from a busy host are low. */
  host: { loadAverage: number; cpus: number; jsonParseNsPerLine: number };
  /** In-process over `keys` keys (a million by default). */
  inProcess: ChildFigures & { keys: number };
  /** In-process again, over `typicalKeys` keys (as many events). */
  inProcessTypicalKeys: ChildFigures & { keys: number };
  offline: ChildFigures & { bytes: number };
  targets: { inProcessEventsPerSecond: number; offlineLinesPerSecond: number; peakRssBytes: number };
  /** inProcess: at a million keys; inProcessTypicalKeys: at `typicalKeys`. */
  met: { inProcess: boolean; inProcessTypicalKeys: boolean; offline: boolean; memory: boolean };
}

interface ChildFigures {
  events: number;
  /** Wall-clock seconds, and CPU seconds of this process (the fair figure on a busy host). */
  seconds: number;
  cpuSeconds: number;
  perCpuSecond: number;
  /** of which the final pass */
  finishSeconds: number;
  perSecond: number;
  peakRssBytes: number;
  anomalies: Record<string, number>;
  /**
   * In-process only: CPU seconds of the synthetic generator alone (same events, a no-op sink,
   * same child), and the checker's own rate: events / (cpuSeconds - generatorCpuSeconds).
   */
  generatorCpuSeconds?: number;
  checkerOnlyPerCpuSecond?: number;
}

const TARGETS = { inProcessEventsPerSecond: 3e6, offlineLinesPerSecond: 1e6, peakRssBytes: 1024 ** 3 };

/**
 * A deterministic synthetic workload: per message a send, an ack (ok) and a process event;
 * keys drawn uniformly, 4 producers, 8 consumers, 32 lanes. About 1 message in 1000 is
 * redelivered after the next one landed (a duplicate and a regression) so the final pass has
 * something to report.
 */
export class SyntheticHistory {
  private state: number;
  private readonly nextSeq: Int32Array;
  private readonly laneOffset = new Float64Array(32);
  readonly keyNames: string[];
  private readonly producers = ['orders', 'billing', 'audit', 'search'];
  private readonly consumers = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'];
  private readonly lanes = Array.from({ length: 32 }, (_, i) => `orders-${i}`);
  private t = 1_700_000_000_000_000;
  readonly send = { type: 'send', key: '', producer: '', seq: 0, at: 0 };
  readonly ack = { type: 'ack', key: '', producer: '', seq: 0, at: 0, ok: true, lane: '', offset: 0 };
  readonly process = { type: 'process', key: '', producer: '', seq: 0, consumer: '', lane: '', offset: 0, received: 0, start: 0, end: 0, outcome: 'ok' };

  constructor(keys: number, seed = 1) {
    this.state = seed >>> 0 || 1;
    this.nextSeq = new Int32Array(keys);
    this.keyNames = Array.from({ length: keys }, (_, i) => `key-${i}`);
  }

  private rand(n: number): number {
    // xorshift32
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state % n;
  }

  /** Fills the three template events for the next message; returns how many to emit (3 or 4). */
  next(): number {
    const k = this.rand(this.keyNames.length);
    const key = this.keyNames[k];
    const producer = this.producers[k & 3];
    const seq = ++this.nextSeq[k];
    const lane = k & 31;
    const offset = this.laneOffset[lane]++;
    const t = (this.t += 10);
    const s = this.send;
    s.key = key;
    s.producer = producer;
    s.seq = seq;
    s.at = t;
    const a = this.ack;
    a.key = key;
    a.producer = producer;
    a.seq = seq;
    a.at = t + 500;
    a.lane = this.lanes[lane];
    a.offset = offset;
    const p = this.process;
    p.key = key;
    p.producer = producer;
    p.seq = seq;
    p.consumer = this.consumers[lane & 7];
    p.lane = this.lanes[lane];
    p.offset = offset;
    p.received = t + 1900;
    p.start = t + 2000;
    p.end = t + 2000 + 7;
    return this.rand(1000) === 0 && seq > 1 ? 4 : 3;
  }

  /** The redelivery of the previous seq (emitted as a 4th event when next() returned 4). */
  redelivery(): typeof this.process {
    const p = this.process;
    return { ...p, seq: p.seq - 1, start: p.end + 1, end: p.end + 5, received: p.end };
  }
}

/** Writes `events` synthetic lines to `file`. Returns the byte count. */
export function writeSyntheticFile(file: string, events: number, keys: number): number {
  const gen = new SyntheticHistory(keys);
  const fd = openSync(file, 'w');
  let buf: string[] = [];
  let size = 0;
  let bytes = 0;
  const flush = () => {
    const chunk = buf.join('');
    writeSync(fd, chunk);
    bytes += Buffer.byteLength(chunk);
    buf = [];
    size = 0;
  };
  try {
    for (let n = 0; n < events; ) {
      const count = gen.next();
      const lines = [JSON.stringify(gen.send), JSON.stringify(gen.ack), JSON.stringify(gen.process)];
      if (count === 4) lines.push(JSON.stringify(gen.redelivery()));
      for (const l of lines) {
        if (n++ >= events) break;
        buf.push(l, '\n');
        size += l.length + 1;
      }
      if (size > 1 << 22) flush();
    }
    flush();
  } finally {
    closeSync(fd);
  }
  return bytes;
}

function anomalyCounts(anomalies: Record<string, { count: number }>): Record<string, number> {
  return Object.fromEntries(Object.entries(anomalies).filter(([, a]) => a.count > 0).map(([t, a]) => [t, a.count]));
}

/** Child: feeds `events` synthetic events to a checker in-process. */
function childInProcess(events: number, keys: number): ChildFigures {
  const gen = new SyntheticHistory(keys);
  const checker = new Checker();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let n = 0; n < events; ) {
    const count = gen.next();
    checker.add(gen.send);
    checker.add(gen.ack);
    checker.add(gen.process);
    n += 3;
    if (count === 4) {
      checker.add(gen.redelivery());
      n++;
    }
  }
  const t1 = performance.now();
  const r = checker.finish();
  const t2 = performance.now();
  const seconds = (t2 - t0) / 1000;
  const cpuSeconds = cpuSince(c0);
  const peakRssBytes = process.resourceUsage().maxRSS * 1024; // before the generator runs alone
  const generatorCpuSeconds = generatorAlone(events, keys);
  return {
    events: r.input.events,
    seconds,
    cpuSeconds,
    perCpuSecond: r.input.events / cpuSeconds,
    finishSeconds: (t2 - t1) / 1000,
    perSecond: r.input.events / seconds,
    peakRssBytes,
    anomalies: anomalyCounts(r.anomalies),
    generatorCpuSeconds,
    checkerOnlyPerCpuSecond: r.input.events / (cpuSeconds - generatorCpuSeconds),
  };
}

/** CPU seconds the generator takes for `events` events into a sink that only reads a field. */
function generatorAlone(events: number, keys: number): number {
  const gen = new SyntheticHistory(keys);
  let sink = 0;
  const c0 = process.cpuUsage();
  for (let n = 0; n < events; ) {
    const count = gen.next();
    sink += gen.send.seq + gen.ack.seq + gen.process.seq;
    n += 3;
    if (count === 4) {
      sink += gen.redelivery().seq;
      n++;
    }
  }
  const cpu = cpuSince(c0);
  if (sink < 0) throw new Error('unreachable');
  return cpu;
}

/** Child: checks a history file. */
async function childOffline(file: string): Promise<ChildFigures> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await checkFile(file);
  const seconds = (performance.now() - t0) / 1000;
  const cpuSeconds = cpuSince(c0);
  return {
    events: r.input.lines,
    seconds,
    cpuSeconds,
    perCpuSecond: r.input.lines / cpuSeconds,
    finishSeconds: NaN, // included in seconds; checkFile does not split it out
    perSecond: r.input.lines / seconds,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    anomalies: anomalyCounts(r.anomalies),
  };
}

function cpuSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1e6;
}

const SELF = fileURLToPath(import.meta.url);

function runChild(args: string[]): ChildFigures {
  const r = spawnSync(process.execPath, ['--import', 'tsx', SELF, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`bench child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() as string) as ChildFigures;
}

export async function runCheckerBench(opts: CheckerBenchOptions = {}): Promise<CheckerBenchResult> {
  const events = opts.events ?? 10_000_000;
  const keys = opts.keys ?? 1_000_000;
  const inProcessEvents = opts.inProcessEvents ?? events;
  const typicalKeys = opts.typicalKeys ?? 10_000;
  const log = opts.log ?? ((l: string) => process.stderr.write(l + '\n'));

  log(`checker bench: in-process, ${inProcessEvents.toLocaleString('en-US')} events over ${keys.toLocaleString('en-US')} keys`);
  const inProcess = { ...runChild(['--child', 'in-process', String(inProcessEvents), String(keys)]), keys };
  log(`checker bench: in-process, ${inProcessEvents.toLocaleString('en-US')} events over ${typicalKeys.toLocaleString('en-US')} keys`);
  const inProcessTypicalKeys = { ...runChild(['--child', 'in-process', String(inProcessEvents), String(typicalKeys)]), keys: typicalKeys };

  const file = join(tmpdir(), `convoy-checker-bench-${process.pid}.jsonl`);
  try {
    log(`checker bench: writing ${events.toLocaleString('en-US')} lines to ${file}`);
    writeSyntheticFile(file, events, keys);
    const bytes = statSync(file).size;
    log(`checker bench: offline, ${(bytes / 1024 ** 2).toFixed(0)} MiB`);
    const offline = { ...runChild(['--child', 'offline', file]), bytes };
    return {
      host: { loadAverage: loadavg()[0], cpus: cpus().length, jsonParseNsPerLine: calibrate() },
      inProcess,
      inProcessTypicalKeys,
      offline,
      targets: TARGETS,
      met: {
        inProcess: inProcess.perCpuSecond >= TARGETS.inProcessEventsPerSecond,
        inProcessTypicalKeys: inProcessTypicalKeys.perCpuSecond >= TARGETS.inProcessEventsPerSecond,
        offline: offline.perCpuSecond >= TARGETS.offlineLinesPerSecond,
        memory: offline.peakRssBytes < TARGETS.peakRssBytes && inProcess.peakRssBytes < TARGETS.peakRssBytes,
      },
    };
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * A yardstick for the host's speed, to compare figures across machines: CPU time of
 * JSON.parse on one typical process line.
 */
export function calibrate(): number {
  const gen = new SyntheticHistory(1000);
  gen.next();
  const line = JSON.stringify(gen.process);
  const n = 200_000;
  const c0 = process.cpuUsage();
  let x = 0;
  for (let i = 0; i < n; i++) x += (JSON.parse(line) as { seq: number }).seq;
  if (x < 0) throw new Error('unreachable');
  return (cpuSince(c0) * 1e9) / n;
}

export function formatCheckerBench(r: CheckerBenchResult): string {
  const m = (x: number) => `${(x / 1e6).toFixed(2)}M`;
  const mib = (x: number) => `${(x / 1024 ** 2).toFixed(0)} MiB`;
  const ok = (b: boolean) => (b ? 'ok' : 'BELOW TARGET');
  const own = (f: ChildFigures) =>
    `checker alone ${m(f.checkerOnlyPerCpuSecond ?? NaN)} events per CPU second (synthetic generator ${(f.generatorCpuSeconds ?? NaN).toFixed(2)} CPU s excluded)`;
  return [
    `host: load average ${r.host.loadAverage.toFixed(1)} on ${r.host.cpus} CPUs; JSON.parse of one process line ${r.host.jsonParseNsPerLine.toFixed(0)} ns`,
    `in-process at ${r.inProcessTypicalKeys.keys.toLocaleString('en-US')} keys: ${m(r.inProcessTypicalKeys.events)} events, ${r.inProcessTypicalKeys.cpuSeconds.toFixed(2)} CPU s (final pass ${r.inProcessTypicalKeys.finishSeconds.toFixed(2)} s) = ${m(r.inProcessTypicalKeys.perCpuSecond)} events per CPU second [target 3M/s: ${ok(r.met.inProcessTypicalKeys)}], peak RSS ${mib(r.inProcessTypicalKeys.peakRssBytes)}`,
    `            ${own(r.inProcessTypicalKeys)}`,
    `in-process at ${r.inProcess.keys.toLocaleString('en-US')} keys: ${m(r.inProcess.events)} events, ${r.inProcess.cpuSeconds.toFixed(2)} CPU s (wall ${r.inProcess.seconds.toFixed(2)} s, final pass ${r.inProcess.finishSeconds.toFixed(2)} s) = ${m(r.inProcess.perCpuSecond)} events per CPU second (wall ${m(r.inProcess.perSecond)}/s) [target 3M/s: ${ok(r.met.inProcess)}], peak RSS ${mib(r.inProcess.peakRssBytes)} [target < 1 GiB: ${ok(r.inProcess.peakRssBytes < r.targets.peakRssBytes)}]`,
    `            ${own(r.inProcess)}`,
    `offline:    ${m(r.offline.events)} lines (${mib(r.offline.bytes)}), ${r.offline.cpuSeconds.toFixed(2)} CPU s (wall ${r.offline.seconds.toFixed(2)} s) = ${m(r.offline.perCpuSecond)} lines per CPU second (wall ${m(r.offline.perSecond)}/s) [target 1M/s: ${ok(r.met.offline)}], peak RSS ${mib(r.offline.peakRssBytes)} [target < 1 GiB: ${ok(r.met.memory)}]`,
    `anomalies found (offline): ${JSON.stringify(r.offline.anomalies)}`,
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  if (args[0] === '--child') {
    const figures = args[1] === 'in-process' ? childInProcess(Number(args[2]), Number(args[3])) : await childOffline(args[2]);
    process.stdout.write(JSON.stringify(figures) + '\n');
  } else {
    const flag = (name: string) => {
      const i = args.indexOf(name);
      return i >= 0 ? Number(args[i + 1]) : undefined;
    };
    const r = await runCheckerBench({ events: flag('--events'), keys: flag('--keys'), inProcessEvents: flag('--in-process-events'), typicalKeys: flag('--typical-keys') });
    process.stdout.write(formatCheckerBench(r) + '\n');
  }
}
