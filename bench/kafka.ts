import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { ackedRate } from './acked-rate.ts';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { Deployment } from '../harness/broker/contract.ts';
import { loadBroker } from '../harness/broker/registry.ts';
import { cacheDir } from '../harness/runtime/cache.ts';
import { executeRun } from '../harness/runner/run.ts';
import { analyzeRun } from '../harness/runner/analyze.ts';
import type { Scenario } from '../harness/spec/types.ts';
import { provision, toolCommand, PRODUCER_PERFORMANCE } from '../brokers/kafka/provision.ts';

const RECORDS = 200_000;
const SIZE = 256;
/**
 * Sends awaiting their ack per producer process: the scenario default (10000), so the figure
 * is what a run gets. The Java tool's counterpart is its 32 MB buffer.memory. With 100000 and
 * an unlimited rate the librdkafka client spends most of a 200k-message run with ~100k sends
 * in flight (its binding hands JavaScript at most 100 delivery reports per event-loop turn,
 * the producer loop sends 256 per turn), and GC over that backlog makes the figure erratic.
 * CONVOY_BENCH_MAX_IN_FLIGHT overrides it.
 */
const MAX_IN_FLIGHT = Number(process.env.CONVOY_BENCH_MAX_IN_FLIGHT ?? 10_000);
/** Rounds of back-to-back measurements (CONVOY_BENCH_ROUNDS, default 3): the median ratio is reported. */
const ROUNDS = Math.max(1, Number(process.env.CONVOY_BENCH_ROUNDS ?? 3));
/**
 * kafka-producer-perf-test has no key option. Its unkeyed records go to one partition per
 * batch (sticky partitioner, the fullest batches); the round-robin partitioner spreads them
 * over all partitions in turn, as convoy's 10k uniform keys do: the closer match for keyed
 * traffic, though still without the keys' bytes and hashing.
 */
export const JAVA_VARIANTS = [
  ['unkeyed, sticky partitioner', []],
  ['unkeyed, round-robin partitioner', ['partitioner.class=org.apache.kafka.clients.producer.RoundRobinPartitioner']],
] as const;
/** CONVOY_BENCH_CLIENTS=confluent measures one client only (quicker while tuning). */
const CLIENTS = (process.env.CONVOY_BENCH_CLIENTS ?? 'confluent,kafkajs').split(',').filter(Boolean);

/** A default local Kafka for one bench, stopped afterwards (also used by bench/consume.ts). */
export async function withKafka<T>(resultsDir: string, fn: (d: Deployment) => Promise<T>): Promise<T> {
  const kafka = await loadBroker('kafka');
  const settings = kafka.resolveSettings({ kind: 'kafka' });
  const d = await kafka.deploy({ runtime: 'local', workDir: join(resultsDir, 'kafka'), cacheDir: cacheDir(), reuse: true, log: () => {} }, settings);
  try {
    return await fn(d);
  } finally {
    await d.stop();
  }
}

/** `kafkajs+process`: the kafkajs client in a process of its own, behind the client protocol (the reference client). */
export function clientSettings(client: string): Record<string, unknown> {
  const [kind, where] = client.split('+');
  return { client: kind, ...(where === 'process' ? { clientProcess: {} } : {}) };
}

export function scenario(name: string, client: string, rate: Scenario['workload']['rate'], opts: { messages?: number; durationMs?: number; keys?: number; consumers?: number }): Scenario {
  return {
    name, description: 'benchmark', seed: 1,
    broker: { kind: 'kafka', ...clientSettings(client), topic: { partitions: 3 } },
    workload: {
      keys: { count: opts.keys ?? 10_000, distribution: { kind: 'uniform' }, prefix: 'k' },
      entity: { kind: 'counter', events: 'state', cancelShare: 0.25 }, rate, size: { kind: 'fixed', bytes: SIZE },
      messages: opts.messages, durationMs: opts.durationMs, warmupMs: 0, maxInFlight: MAX_IN_FLIGHT,
      producers: [{ name: 'bench', processes: 1, sharedKeys: false }],
    },
    // No consumer: the Java tool has none either, and on 2 cores one would take half the CPU.
    consumers: { processes: opts.consumers ?? 0, handler: { kind: 'constant', ms: 0 }, concurrency: { mode: 'partition', workers: 1 }, strategy: 'versioned' },
    faults: [],
    expect: {},
    run: { drainTimeoutMs: opts.consumers ? 20_000 : 1_000, giveUpDelayMs: 2_000, maxDurationMs: 600_000, settleMs: 1000 },
  };
}

export async function convoyRun(d: Deployment, resultsDir: string, s: Scenario) {
  const record = await executeRun(s, { runtime: 'local', resultsDir, keep: false, allowDestructive: false, deployment: d });
  const result = await analyzeRun(record);
  const acks = (result.timeline as { series: { acked: number[] } }).series.acked;
  const lat = (result.latency as { whole: Record<string, { p50: number; p99: number }> }).whole;
  return { result, acks, lat, acked: await ackedRate(record.historyFile) };
}


/** Peak per-second acked rate, and the mean over the seconds that were fully busy. */
export function sustained(acks: number[]): number {
  const busy = acks.slice(1, -1).filter((n) => n > 0);
  return busy.length ? Math.round(busy.reduce((a, b) => a + b, 0) / busy.length) : Math.max(0, ...acks);
}

/** CPU seconds (user + system) of a process, or of its reaped children with `children`. */
export function cpuSeconds(pid: number | 'self', children = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14-17 of proc(5) (utime, stime, cutime, cstime) are at 11-14 here.
    const ticks = children ? Number(f[13]) + Number(f[14]) : Number(f[11]) + Number(f[12]);
    return ticks / 100; // USER_HZ
  } catch {
    return 0;
  }
}

/** This process's descendants whose command line matches, by pid (the broker and Toxiproxy this bench started). */
function descendants(match: RegExp): number[] {
  const parent = new Map<number, number>();
  const cmd = new Map<number, string>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      parent.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      cmd.set(Number(e), readFileSync(`/proc/${e}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch {
      /* gone */
    }
  }
  const mine = (pid: number): boolean => {
    for (let p = pid, n = 0; p > 1 && n < 50; p = parent.get(p) ?? 0, n++) if (p === process.pid) return true;
    return false;
  };
  return [...cmd].filter(([pid, c]) => pid !== process.pid && match.test(c) && mine(pid)).map(([pid]) => pid);
}

/**
 * CPU seconds spent during fn: by the client (this process's children that exited: the Java
 * tool, or convoy's producer worker with its librdkafka threads), by the broker and by
 * Toxiproxy (both clients reach the broker through it).
 */
export async function withCpu<T>(fn: () => Promise<T> | T): Promise<{ value: T; client: number; broker: number; proxy: number; wallS: number }> {
  const broker = descendants(/kafka\.Kafka /);
  const proxy = descendants(/toxiproxy/);
  const sum = (pids: number[]) => pids.reduce((a, p) => a + cpuSeconds(p), 0);
  const before = { client: cpuSeconds('self', true), broker: sum(broker), proxy: sum(proxy), t: Date.now() };
  const value = await fn();
  return {
    value,
    client: cpuSeconds('self', true) - before.client,
    broker: sum(broker) - before.broker,
    proxy: sum(proxy) - before.proxy,
    wallS: (Date.now() - before.t) / 1000,
  };
}

export type Cpu = { client: number; broker: number; proxy: number };
/** CPU ms per 1000 messages beyond a 1-message run's (start-up, connection, shutdown). */
function perThousand(run: Cpu, base: Cpu, messages: number): string {
  const f = (k: keyof Cpu) => (Math.max(0, run[k] - base[k]) * 1e6) / (messages - 1);
  return `CPU ms per 1k msgs: client ${f('client').toFixed(1)}, broker ${f('broker').toFixed(1)}, proxy ${f('proxy').toFixed(1)}; 1-message run: client ${base.client.toFixed(1)} s`;
}

function fmtMedian(xs: number[]): string {
  if (xs.length === 0) return '-';
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return `${median.toFixed(2)} [${xs.map((x) => x.toFixed(2)).join(', ')}]`;
}

export const load = () => `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (${cpus().length} CPUs)`;

export async function producerThroughput(opts: { resultsDir: string }): Promise<string[]> {
  const lines: string[] = [`at start: ${load()}`];
  const inst = provision(undefined, { tools: true });
  await withKafka(opts.resultsDir, async (d) => {
    const bootstrap = (d.endpoint as { bootstrapServers: string[] }).bootstrapServers.join(',');
    // The Java tool, through the same Toxiproxy path as convoy's clients.
    // The broker does not create topics on first use: make the tool's topic like a run's.
    const names = { runId: 'bench-perf', prefix: 'convoy-bench-perf' };
    const kafka = await loadBroker('kafka');
    const admin = await kafka.admin(d.endpoint, kafka.resolveSettings({ kind: 'kafka', topic: { partitions: 3 } }), names);
    await admin.createDestinations();
    const topic = names.prefix;
    const javaTool = (records: number, props: string[]) => {
      const cmd = toolCommand(inst, PRODUCER_PERFORMANCE, [
        '--topic', topic, '--num-records', String(records), '--record-size', String(SIZE), '--throughput', '-1',
        '--producer-props', `bootstrap.servers=${bootstrap}`, 'acks=all', ...props,
      ]);
      const r = spawnSync(cmd.command, cmd.args, { encoding: 'utf8', timeout: 180_000 });
      const summary = (r.stdout ?? '').trim().split('\n').filter((l) => /records sent/.test(l)).pop() ?? `failed: ${(r.stderr ?? '').split('\n').slice(-3).join(' ')}`;
      return { summary, rate: Number(/([\d.]+) records\/sec/.exec(summary)?.[1] ?? 0) };
    };
    const javaBase = await withCpu(() => javaTool(1, []));
    const bases = new Map<string, Cpu>();
    for (const client of CLIENTS) {
      bases.set(client, await withCpu(() => convoyRun(d, opts.resultsDir, scenario(`bench-${client}-base`, client, { kind: 'unlimited' }, { messages: 1 }))));
    }
    // Rounds, each measuring every tool back to back: the host's load drifts between minutes,
    // so each convoy figure is compared with the Java figures of its own round, and the
    // median of the rounds' ratios is the result.
    const ratios = new Map<string, { sticky: number[]; roundRobin: number[] }>(CLIENTS.map((c) => [c, { sticky: [], roundRobin: [] }]));
    for (let round = 1; round <= ROUNDS; round++) {
      lines.push(`round ${round} of ${ROUNDS} (${load()})`);
      const java: number[] = [];
      for (const [label, props] of JAVA_VARIANTS) {
        const r = await withCpu(() => javaTool(RECORDS, [...props]));
        java.push(r.value.rate);
        lines.push(`  kafka-producer-perf-test (${label}, ${SIZE} B, acks=all): ${r.value.summary}  [${r.wallS.toFixed(0)} s]`);
        lines.push(`      ${perThousand(r, javaBase, RECORDS)}`);
      }
      for (const client of CLIENTS) {
        const profileDir = process.env.CONVOY_BENCH_PROFILE && round === 1 ? mkdtempSync(join(opts.resultsDir, `prof-${client}-`)) : undefined;
        const run = await withWorkerArgs(profileDir ? `--cpu-prof --cpu-prof-dir=${profileDir}` : undefined, () =>
          withCpu(() => convoyRun(d, opts.resultsDir, scenario(`bench-${client}`, client, { kind: 'unlimited' }, { messages: RECORDS }))),
        );
        const { acks, lat } = run.value;
        const rate = sustained(acks);
        const r = ratios.get(client)!;
        if (java[0]) r.sticky.push(rate / java[0]);
        if (java[1]) r.roundRobin.push(rate / java[1]);
        lines.push(
          `  convoy ${client.padEnd(9)} (keyed, 10k keys, ${SIZE} B, acks=all, maxInFlight ${MAX_IN_FLIGHT}): ${rate} msg/s sustained, publish p50 ${(lat.publish.p50 / 1000).toFixed(1)} ms p99 ${(lat.publish.p99 / 1000).toFixed(1)} ms` +
            `  ratio to the Java tool ${java[0] ? (rate / java[0]).toFixed(2) : '-'} (round-robin ${java[1] ? (rate / java[1]).toFixed(2) : '-'})`,
        );
        lines.push(`      ${perThousand(run, bases.get(client)!, RECORDS)}`);
        if (profileDir) for (const l of profileSummary(profileDir, client === 'confluent' ? 'client-confluent' : 'client-kafkajs')) lines.push(`      ${l}`);
      }
    }
    await admin.deleteDestinations();
    await admin.close();
    for (const [client, r] of ratios) {
      lines.push(`median ratio over ${ROUNDS} rounds, convoy ${client} / kafka-producer-perf-test: ${fmtMedian(r.sticky)} (sticky partitioner), ${fmtMedian(r.roundRobin)} (round-robin partitioner)`);
    }
  });
  lines.push(`at end: ${load()}`);
  return lines;
}

/** Runs fn with extra node args for convoy's worker processes (CONVOY_WORKER_NODE_ARGS). */
async function withWorkerArgs<T>(args: string | undefined, fn: () => Promise<T>): Promise<T> {
  if (!args) return fn();
  const saved = process.env.CONVOY_WORKER_NODE_ARGS;
  process.env.CONVOY_WORKER_NODE_ARGS = args;
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env.CONVOY_WORKER_NODE_ARGS;
    else process.env.CONVOY_WORKER_NODE_ARGS = saved;
  }
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/**
 * Where the producer worker's main thread spent its time (CONVOY_BENCH_PROFILE=1): self time
 * over the busy window, from the first to the last sample inside the client adapter.
 */
function profileSummary(dir: string, mark: string): string[] {
  const file = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(dir, f)).sort((a, b) => statSync(b).size - statSync(a).size)[0];
  if (!file) return ['(no profile written)'];
  const p = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const marked = new Map<number, boolean>();
  const inAdapter = (id: number): boolean => {
    let r = marked.get(id);
    if (r === undefined) {
      r = false;
      for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) if (byId.get(x)!.callFrame.url.includes(mark)) r = true;
      marked.set(id, r);
    }
    return r;
  };
  const first = p.samples.findIndex(inAdapter);
  let last = p.samples.length - 1;
  while (last > first && !inAdapter(p.samples[last]!)) last--;
  const self = new Map<string, number>();
  let total = 0;
  for (let i = Math.max(0, first); i <= last; i++) {
    const d = p.timeDeltas[i + 1] ?? 0;
    const cf = byId.get(p.samples[i]!)!.callFrame;
    const name = cf.url ? `${cf.functionName || '(anonymous)'} ${cf.url.split('/').slice(-2).join('/')}` : cf.functionName;
    self.set(name, (self.get(name) ?? 0) + d);
    total += d;
  }
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 12);
  return [
    `producer worker main thread, busy window ${(total / 1e6).toFixed(1)} s (profile ${file}):`,
    ...top.map(([n, t]) => `  ${((100 * t) / total).toFixed(1).padStart(5)}%  ${n}`),
  ];
}

export async function rateAccuracy(opts: { resultsDir: string }): Promise<string[]> {
  const lines: string[] = [`at start: ${load()}`];
  await withKafka(opts.resultsDir, async (d) => {
    for (const target of [1_000, 10_000, 50_000]) {
      const { result, lat } = await convoyRun(d, opts.resultsDir, scenario(`rate-${target}`, 'confluent', { kind: 'fixed', perSecond: target }, { durationMs: 10_000 }));
      const w = result.workload as { achievedRate: number };
      lines.push(
        `target ${String(target).padStart(6)}/s: achieved ${String(w.achievedRate).padStart(6)}/s (${((w.achievedRate / target) * 100).toFixed(1)}%), publish delay p50 ${(lat.publishDelay.p50 / 1000).toFixed(2)} ms p99 ${(lat.publishDelay.p99 / 1000).toFixed(1)} ms (publish latency p99 ${(lat.publish.p99 / 1000).toFixed(1)} ms), harness verdict on its own rate: ${rateVerdict(result)}`,
      );
    }
  });
  lines.push(`at end: ${load()}`);
  return lines;
}

/** Whether the harness kept its schedule (its unknown reasons), apart from what the checker found. */
function rateVerdict(result: Record<string, unknown>): string {
  const reasons = ((result.harness as { incomplete?: string[] } | undefined)?.incomplete ?? []).filter((r) => /rate|lagged|planned/.test(r));
  return reasons.length ? `not kept (${reasons.join('; ')})` : 'kept';
}
