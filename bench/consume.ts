/**
 * `npm run bench -- consume`: convoy's consumer path next to kafka-consumer-perf-test
 * (ConsumerPerformance), reading the same topic preloaded with the same messages.
 *
 * One topic (6 partitions) is filled once with MESSAGES convoy-encoded messages (10k keys,
 * 256 B). Then, back to back:
 *   - the Java tool reads MESSAGES from it with a fresh group;
 *   - the librdkafka binding on its own (bench/bare/confluent-consumer.ts: consume(1000), nothing done per
 *     message): what a Node process can read here, so convoy's share of the cost shows;
 *   - a real convoy consumer worker (the process a run starts: history file and entity store
 *     on, versioned strategy) reads it with each client and each concurrency mode. The group
 *     is deleted after each, so every reader starts from offset 0.
 * Per reader: messages/s over the busy window (first delivery to last settlement; the Java
 * tool's fetch.nMsg.sec, which also leaves out its group join), client CPU ms per 1000
 * messages, and where the consumer's time went (phases.ts): handler wait, store, history,
 * settle/commit, and the rest (client adapter, dispatcher, librdkafka/kafkajs).
 *
 * `scale` is the scale run: 10,000 msg/s, 6 partitions, 100,000 keys (Zipf 0.8),
 * 2 consumer processes, 0 ms handler, partition mode, librdkafka client, 40 s: its backlog
 * and whether the drain caught up.
 *
 * CONVOY_BENCH_BEFORE=<git rev> also measures the consumer worker (and the scale run) of that
 * revision, exported to a temporary directory, in the same bench run: before/after side by side.
 * CONVOY_BENCH_CONSUME_MESSAGES (default 100000), CONVOY_BENCH_CONSUME_MAX_S (default 30: a
 * reader slower than MESSAGES in that time is measured on what it read),
 * CONVOY_BENCH_CLIENTS, CONVOY_BENCH_MODES narrow the set (`partition*6`: partition mode with
 * broker.consumer.partitionsConsumedConcurrently 6, one delivery in flight per partition).
 * CONVOY_BENCH_CLIENTS takes `kafkajs+process` (the client in a process of its own, behind the client
 * protocol); CONVOY_BENCH_SIDE_BY_SIDE=1 measures every client in the same interleaved rounds.
 * CONVOY_BENCH_ROUNDS (default 1) repeats each client and mode, the trees interleaved and their
 * order alternated per round (before, this; this, before; ...), and prints each tree's median
 * and range of client CPU per 1,000 messages and of msg/s, and the ratio of the medians.
 */
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Deployment } from '../harness/broker/contract.ts';
import { loadBroker } from '../harness/broker/registry.ts';
import { nowMicros, sleep } from '../harness/clock.ts';
import { encodeMessage } from '../harness/workload/codec.ts';
import type { Scenario } from '../harness/spec/types.ts';
import type { WorkerInit } from '../harness/workers/protocol.ts';
import type { ConsumerPhases } from '../harness/workers/phases.ts';
import { openStrategyStore } from '../harness/consumer/strategies/open.ts';
import { provision, toolCommand, CONSUMER_PERFORMANCE } from '../brokers/kafka/provision.ts';
import type { KafkaAdmin } from '../brokers/kafka/admin.ts';
import { clientSettings, withKafka } from './kafka.ts';

const MESSAGES = Number(process.env.CONVOY_BENCH_CONSUME_MESSAGES ?? 100_000);
const MAX_S = Number(process.env.CONVOY_BENCH_CONSUME_MAX_S ?? 30);
const PARTITIONS = 6;
const KEYS = 10_000;
const SIZE = 256;
const WORKERS = 8;
const CLIENTS = (process.env.CONVOY_BENCH_CLIENTS ?? 'confluent,kafkajs').split(',').filter(Boolean);
/** A concurrency mode, `partition*N`: partition mode with broker.consumer.partitionsConsumedConcurrently N. */
const ROUNDS = Math.max(1, Number(process.env.CONVOY_BENCH_ROUNDS ?? 1));
/** CONVOY_BENCH_SIDE_BY_SIDE=1: every client (and tree) in the same interleaved rounds, e.g. kafkajs against kafkajs+process. */
const SIDE_BY_SIDE = process.env.CONVOY_BENCH_SIDE_BY_SIDE === '1';
const MODES = (process.env.CONVOY_BENCH_MODES ?? `partition,partition*${PARTITIONS},key,unordered`).split(',').filter(Boolean);
type Mode = 'partition' | 'key' | 'unordered';
const modeOf = (m: string) => ({ mode: m.split('*')[0] as Mode, concurrentPartitions: Number(m.split('*')[1] ?? 1) });
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');

const load = () => `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (${cpus().length} CPUs)`;

function cpuSeconds(pid: number | 'self', children = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = children ? Number(f[13]) + Number(f[14]) : Number(f[11]) + Number(f[12]);
    return ticks / 100;
  } catch {
    return 0;
  }
}

/** The live children of a process. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** A tree of convoy to measure: this checkout, or a revision exported beside it. */
export interface Tree {
  label: string;
  dir: string;
}

/** Exports `rev` to a temporary directory that shares this checkout's node_modules. */
function exportRevision(rev: string, into: string): Tree {
  const dir = join(into, `tree-${rev.replace(/[^\w.-]/g, '_')}`);
  const sha = execSync(`git -C ${JSON.stringify(REPO)} rev-parse --short ${rev}`, { encoding: 'utf8' }).trim();
  if (existsSync(join(dir, 'node_modules'))) return { label: `before (${sha})`, dir }; // exported by an earlier part
  mkdirSync(dir, { recursive: true });
  execSync(`git -C ${JSON.stringify(REPO)} archive ${rev} | tar -x -C ${JSON.stringify(dir)}`, { stdio: ['ignore', 'ignore', 'inherit'] });
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  return { label: `before (${sha})`, dir };
}

export function trees(resultsDir: string): Tree[] {
  const out: Tree[] = [];
  const before = process.env.CONVOY_BENCH_BEFORE;
  if (before) out.push(exportRevision(before, resultsDir));
  const head = execSync(`git -C ${JSON.stringify(REPO)} rev-parse --short HEAD`, { encoding: 'utf8' }).trim();
  const dirty = execSync(`git -C ${JSON.stringify(REPO)} status --porcelain -- harness brokers`, { encoding: 'utf8' }).trim() ? '+changes' : '';
  out.push({ label: `this tree (${head}${dirty})`, dir: REPO });
  return out;
}

function consumerScenario(client: string, variant: string): Scenario {
  const { mode, concurrentPartitions } = modeOf(variant);
  return {
    name: 'bench-consume', description: 'benchmark', seed: 1,
    broker: { kind: 'kafka', ...clientSettings(client), topic: { partitions: PARTITIONS }, consumer: { partitionsConsumedConcurrently: concurrentPartitions } },
    workload: {
      keys: { count: KEYS, distribution: { kind: 'uniform' }, prefix: 'k' },
      entity: { kind: 'counter', events: 'state', cancelShare: 0.25 }, rate: { kind: 'unlimited' }, size: { kind: 'fixed', bytes: SIZE },
      messages: MESSAGES, warmupMs: 0, maxInFlight: 10_000,
      producers: [{ name: 'bench', processes: 1, sharedKeys: false }],
    },
    consumers: { processes: 1, handler: { kind: 'constant', ms: 0 }, concurrency: { mode, workers: mode === 'partition' ? 1 : WORKERS }, strategy: 'versioned' },
    faults: [],
    expect: {},
    run: { drainTimeoutMs: 20_000, giveUpDelayMs: 2_000, maxDurationMs: 600_000, settleMs: 1000 },
  } as Scenario;
}

/** Fills the topic with MESSAGES messages: key k<i mod KEYS>, versions 1, 2, ... per key. */
export async function preload(d: Deployment, names: { runId: string; prefix: string }, messages = MESSAGES): Promise<number> {
  const kafka = await loadBroker('kafka');
  const settings = kafka.resolveSettings({ kind: 'kafka', client: 'confluent', topic: { partitions: PARTITIONS } } as never);
  const producer = await kafka.producer(d.endpoint, settings, names, { id: 'preload', log: () => {} });
  const started = Date.now();
  let inFlight = 0;
  let failed = 0;
  let wake: (() => void) | undefined;
  for (let i = 0; i < messages; i++) {
    while (inFlight >= 10_000) await new Promise<void>((r) => (wake = r));
    const key = `k${i % KEYS}`;
    const payload = encodeMessage({ producer: 'bench', key, seq: Math.floor(i / KEYS) + 1, entity: 'counter', intendedUs: nowMicros(), poison: false }, SIZE);
    inFlight++;
    producer.send({ key, payload }).then(
      () => {},
      () => void failed++,
    ).finally(() => {
      inFlight--;
      wake?.();
      wake = undefined;
    });
  }
  while (inFlight > 0) await new Promise<void>((r) => (wake = r));
  await producer.close();
  if (failed) throw new Error(`preload: ${failed} sends failed`);
  return (Date.now() - started) / 1000;
}

export interface Reading {
  messages: number;
  rate: number;
  cpuPer1k: number;
  /**
   * Client CPU per 1,000 messages over the busy window, as the bare clients measure it: from the
   * first stats report (every 500 ms) that shows messages applied to the last, so the group join
   * and the wait for the first fetch are left out. Absent when every message came in the first report.
   */
  busyCpuPer1k?: number;
  phases?: ConsumerPhases;
  note?: string;
}

/** A real consumer worker of `tree` reads the topic from the start (fresh group). */
export async function convoyConsumer(tree: Tree, d: Deployment, admin: KafkaAdmin, names: { runId: string; prefix: string }, client: string, mode: string, dir: string, messages = MESSAGES): Promise<Reading> {
  const { WorkerHandle } = (await import(join(tree.dir, 'harness/workers/handle.ts'))) as typeof import('../harness/workers/handle.ts');
  const kafka = await loadBroker('kafka');
  const scenario = consumerScenario(client, mode);
  const work = mkdtempSync(join(dir, `c-${client}-${mode.replace('*', 'x')}-`));
  const init: WorkerInit = {
    role: 'consumer', id: 'c1', brokerKind: 'kafka', endpoint: d.endpoint,
    settings: kafka.resolveSettings(scenario.broker), names, scenario,
    historyFile: join(work, 'c1.jsonl'), storeFile: join(work, 'state.sqlite'),
  };
  (await openStrategyStore(init.storeFile, scenario)).close();
  const logs: string[] = [];
  const w = new WorkerHandle(init, join(work, 'c1.log'), (l) => logs.push(l));
  let note: string | undefined;
  try {
    await w.waitFor('ready', 60_000, 'consumer start');
    const pid = w.pid!;
    // The worker and any client process it started (an out-of-process client does the broker's work).
    const cpuOfTree = () => cpuSeconds(pid) + childrenOf(pid).reduce((n, c) => n + cpuSeconds(c), 0);
    const cpu0 = cpuOfTree();
    const started = Date.now();
    let last = 0;
    let lastChange = Date.now();
    let busy: { cpu: number; applied: number } | undefined;
    while (w.stats.applied < messages) {
      await sleep(50);
      if (w.stats.applied !== last) {
        last = w.stats.applied;
        lastChange = Date.now();
        busy ??= { cpu: cpuOfTree(), applied: last };
      }
      if (Date.now() - started > MAX_S * 1000) {
        note = `stopped after ${MAX_S} s`;
        break;
      }
      if (Date.now() - lastChange > 15_000) {
        note = 'no progress for 15 s';
        break;
      }
      if (w.exited) throw new Error(`consumer worker exited (${w.exitCode}): ${logs.slice(-3).join(' | ')}`);
    }
    const cpuEnd = cpuOfTree();
    const cpu = cpuEnd - cpu0;
    const s = w.stats;
    const busyCpuPer1k = busy && s.applied > busy.applied ? ((cpuEnd - busy.cpu) * 1e6) / (s.applied - busy.applied) : undefined;
    const p = s.phases;
    const windowS = p && p.lastUs > p.firstUs ? (p.lastUs - p.firstUs) / 1e6 : (Date.now() - started) / 1000;
    const handled = p?.deliveries ?? s.applied;
    return { messages: handled, rate: handled / windowS, cpuPer1k: (cpu * 1e6) / Math.max(1, s.applied), busyCpuPer1k, phases: p, note };
  } finally {
    await w.stop(10_000);
    await admin.client.deleteGroups([`${names.prefix}-group`]).catch(() => {});
  }
}

/** kafka-consumer-perf-test reading MESSAGES from the start with a fresh group. */
export function javaConsumer(inst: ReturnType<typeof provision>, bootstrap: string, topic: string, group: string, messages: number) {
  const cmd = toolCommand(inst, CONSUMER_PERFORMANCE, ['--bootstrap-server', bootstrap, '--topic', topic, '--messages', String(messages), '--group', group, '--timeout', '60000']);
  const cpu0 = cpuSeconds('self', true);
  const r = spawnSync(cmd.command, cmd.args, { encoding: 'utf8', timeout: 180_000 });
  const cpu = cpuSeconds('self', true) - cpu0;
  // start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
  const line = (r.stdout ?? '').trim().split('\n').filter((l) => /^\d{4}-/.test(l)).pop();
  if (!line) return { ok: false as const, error: (r.stderr ?? '').split('\n').slice(-3).join(' '), cpu };
  const f = line.split(',').map((x) => x.trim());
  return { ok: true as const, nMsg: Number(f[4]), rate: Number(f[5]), fetchRate: Number(f[9]), cpu };
}

/** The bare binding (bench/bare/confluent-consumer.ts) reading MESSAGES from the start with a fresh group. */
function bareConsumer(bootstrap: string, topic: string, group: string): { rate: number; cpuPer1k: number; messages: number } | { error: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'bench', 'bare', 'confluent-consumer.ts'), bootstrap, topic, group, String(MESSAGES)], { encoding: 'utf8', timeout: 180_000, cwd: REPO });
  const line = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  try {
    const o = JSON.parse(line) as { messages: number; firstMs: number; lastMs: number; cpuMs: number };
    return { messages: o.messages, rate: o.messages / Math.max(1e-3, (o.lastMs - o.firstMs) / 1000), cpuPer1k: (o.cpuMs * 1000) / Math.max(1, o.messages) };
  } catch {
    return { error: `${line} ${(r.stderr ?? '').split('\n').slice(-3).join(' ')}`.trim() };
  }
}

function fmtPhases(p: ConsumerPhases | undefined, rate: number): string {
  if (!p || !p.deliveries) return 'phases: - (not recorded by this tree)';
  const wallMs = (p.lastUs - p.firstUs) / 1000;
  const pct = (ms: number) => `${((100 * ms) / wallMs).toFixed(0)}%`;
  const us = (ms: number) => `${((1000 * ms) / p.deliveries).toFixed(1)} µs`;
  const rest = Math.max(0, wallMs - p.handlerMs - p.storeMs - p.historyMs - p.settleMs);
  void rate;
  return `per message (share of the busy window): handler wait ${us(p.handlerMs)} (${pct(p.handlerMs)}), store ${us(p.storeMs)} (${pct(p.storeMs)}), history ${us(p.historyMs)} (${pct(p.historyMs)}), settle/commit ${us(p.settleMs)} (${pct(p.settleMs)}), client and the rest ${us(rest)} (${pct(rest)})`;
}

export async function consumerThroughput(opts: { resultsDir: string }): Promise<string[]> {
  const lines: string[] = [`at start: ${load()}`];
  const inst = provision(undefined, { tools: true });
  const measured = trees(opts.resultsDir);
  await withKafka(opts.resultsDir, async (d) => {
    const bootstrap = (d.endpoint as { bootstrapServers: string[] }).bootstrapServers.join(',');
    const names = { runId: 'bench-consume', prefix: 'convoy-bench-consume' };
    const kafka = await loadBroker('kafka');
    const admin = (await kafka.admin(d.endpoint, kafka.resolveSettings({ kind: 'kafka', topic: { partitions: PARTITIONS } } as never), names)) as unknown as KafkaAdmin;
    await admin.deleteDestinations().catch(() => {});
    await admin.createDestinations();
    try {
      const preloadS = await preload(d, names);
      lines.push(`topic ${names.prefix}: ${PARTITIONS} partitions, ${MESSAGES} messages (${KEYS} keys, ${SIZE} B), preloaded in ${preloadS.toFixed(1)} s`);
      const javaBase = javaConsumer(inst, bootstrap, names.prefix, 'bench-java-base', 1);
      let javaRuns = 0;
      const java = () => {
        const r = javaConsumer(inst, bootstrap, names.prefix, `bench-java-${++javaRuns}`, MESSAGES);
        if (!r.ok) {
          lines.push(`  kafka-consumer-perf-test failed: ${r.error}`);
          return 0;
        }
        const cpuPer1k = (Math.max(0, r.cpu - javaBase.cpu) * 1e6) / MESSAGES;
        lines.push(`  kafka-consumer-perf-test: ${Math.round(r.fetchRate)} msg/s (fetch.nMsg.sec; ${Math.round(r.rate)} with its group join), client CPU ${cpuPer1k.toFixed(1)} ms per 1k msgs (beyond a 1-message run's ${javaBase.cpu.toFixed(1)} s)  [${load()}]`);
        return r.fetchRate;
      };
      let bareRuns = 0;
      if (SIDE_BY_SIDE) {
        // Every client of every tree in the same interleaved rounds: what one costs against another.
        const javaRate = java();
        for (const mode of MODES) {
          const units = CLIENTS.flatMap((client) => measured.map((tree) => ({ client, tree, label: `${client} ${tree.label}` })));
          const readings = new Map<{ label: string }, Reading[]>(units.map((u) => [u, []]));
          for (let round = 1; round <= ROUNDS; round++) {
            for (const u of round % 2 === 1 ? units : [...units].reverse()) {
              const r = await convoyConsumer(u.tree, d, admin, names, u.client, mode, opts.resultsDir);
              readings.get(u)!.push(r);
              lines.push(`  convoy ${u.label.padEnd(40)} ${mode.padEnd(9)} round ${round}: ${Math.round(r.rate)} msg/s, ratio to the Java tool ${javaRate ? (r.rate / javaRate).toFixed(2) : '-'}, client CPU ${r.cpuPer1k.toFixed(1)} ms per 1k msgs${r.note ? ` (${r.note})` : ''}`);
            }
          }
          lines.push(...roundsSummary('side by side', mode, readings));
        }
        return;
      }
      for (const client of CLIENTS) {
        // The Java tool again before each client's set: the ratio is taken against its own neighbour.
        const javaRate = java();
        // librdkafka: also the binding on its own, nothing done per message (what a Node process can read here).
        let bareRate = 0;
        if (client === 'confluent') {
          const b = bareConsumer(bootstrap, names.prefix, `bench-bare-${++bareRuns}`);
          if ('error' in b) lines.push(`  bare librdkafka binding failed: ${b.error}`);
          else {
            bareRate = b.rate;
            lines.push(`  bare librdkafka binding (consume(1000), nothing per message): ${Math.round(b.rate)} msg/s over ${b.messages} msgs, ratio to the Java tool ${javaRate ? (b.rate / javaRate).toFixed(2) : '-'}, client CPU ${b.cpuPer1k.toFixed(1)} ms per 1k msgs  [${load()}]`);
          }
        }
        for (const mode of MODES) {
          const readings = new Map<Tree, Reading[]>(measured.map((t) => [t, []]));
          for (let round = 1; round <= ROUNDS; round++) {
            // Interleaved, and the order alternated: neither tree always reads after the other.
            for (const tree of round % 2 === 1 ? measured : [...measured].reverse()) {
              const r = await convoyConsumer(tree, d, admin, names, client, mode, opts.resultsDir);
              readings.get(tree)!.push(r);
              lines.push(
                `  convoy ${client.padEnd(9)} ${mode.padEnd(9)} ${tree.label}${ROUNDS > 1 ? ` round ${round}` : ''}: ${Math.round(r.rate)} msg/s over ${r.messages} msgs${r.note ? ` (${r.note})` : ''}, ratio to the Java tool ${javaRate ? (r.rate / javaRate).toFixed(2) : '-'}${bareRate ? `, to the bare binding ${(r.rate / bareRate).toFixed(2)}` : ''}, client CPU ${r.cpuPer1k.toFixed(1)} ms per 1k msgs`,
              );
              lines.push(`      ${fmtPhases(r.phases, r.rate)}`);
            }
          }
          if (ROUNDS > 1) lines.push(...roundsSummary(client, mode, readings));
        }
      }
    } finally {
      await admin.deleteDestinations().catch(() => {});
      await admin.close();
    }
  });
  lines.push(`at end: ${load()}`);
  return lines;
}

/** The median; NaN of none. */
export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Each tree's median and range over the rounds; with two trees, the ratio of the medians (this / before). */
function roundsSummary(client: string, mode: string, readings: Map<{ label: string }, Reading[]>): string[] {
  const out = [`  ${client} ${mode}, ${ROUNDS} interleaved rounds, median (range):`];
  const medians: number[] = [];
  const labels: string[] = [];
  for (const [tree, rs] of readings) {
    labels.push(tree.label);
    const cpu = rs.map((r) => r.cpuPer1k);
    const rate = rs.map((r) => r.rate);
    medians.push(median(cpu));
    out.push(`    ${tree.label}: client CPU ${median(cpu).toFixed(1)} (${Math.min(...cpu).toFixed(1)}–${Math.max(...cpu).toFixed(1)}) ms per 1k msgs, ${Math.round(median(rate))} (${Math.round(Math.min(...rate))}–${Math.round(Math.max(...rate))}) msg/s`);
  }
  for (let i = 1; i < medians.length; i++) out.push(`    client CPU per 1k msgs, ${labels[i]} / ${labels[0]}: ${(medians[i]! / medians[0]!).toFixed(3)}`);
  return out;
}

/** Index of the last non-zero second (0 when none). */
function lastBusy(xs: number[]): number {
  for (let i = xs.length - 1; i >= 0; i--) if (xs[i]! > 0) return i;
  return 0;
}

function scaleScenario(): Scenario {
  return {
    name: 'bench-scale', description: 'the scale run: 10k msg/s, 6 partitions, 100k keys (Zipf 0.8), 2 consumers, 0 ms handler', seed: 1,
    broker: {
      kind: 'kafka', client: 'confluent', topic: { partitions: 6 },
      // CONVOY_BENCH_SCALE_CONCURRENT=N: each consumer handles up to N of its partitions side by side.
      ...(process.env.CONVOY_BENCH_SCALE_CONCURRENT ? { consumer: { partitionsConsumedConcurrently: Number(process.env.CONVOY_BENCH_SCALE_CONCURRENT) } } : {}),
    },
    workload: {
      keys: { count: 100_000, distribution: { kind: 'zipf', s: 0.8 }, prefix: 'k' },
      entity: { kind: 'order', events: 'state', cancelShare: 0.25 }, rate: { kind: 'fixed', perSecond: 10_000 }, size: { kind: 'fixed', bytes: SIZE },
      durationMs: Number(process.env.CONVOY_BENCH_SCALE_S ?? 40) * 1000, warmupMs: 0, maxInFlight: 10_000,
      producers: [{ name: 'bench', processes: 1, sharedKeys: false }],
    },
    consumers: { processes: 2, handler: { kind: 'constant', ms: 0 }, concurrency: { mode: 'partition', workers: 1 }, strategy: 'versioned' },
    faults: [],
    expect: {},
    run: { drainTimeoutMs: 30_000, giveUpDelayMs: 2_000, maxDurationMs: 600_000, settleMs: 1000 },
  } as Scenario;
}

/** The scale run, by each tree's runner (its consumer workers), on one broker. */
export async function scaleRun(opts: { resultsDir: string }): Promise<string[]> {
  const lines: string[] = [`at start: ${load()}`];
  const measured = trees(opts.resultsDir);
  await withKafka(opts.resultsDir, async (d) => {
    for (const tree of measured) {
      const { executeRun } = (await import(join(tree.dir, 'harness/runner/run.ts'))) as typeof import('../harness/runner/run.ts');
      const { analyzeRun } = (await import(join(tree.dir, 'harness/runner/analyze.ts'))) as typeof import('../harness/runner/analyze.ts');
      const record = await executeRun(scaleScenario(), { runtime: 'local', resultsDir: opts.resultsDir, keep: false, allowDestructive: false, deployment: d });
      const result = await analyzeRun(record);
      const series = (result.timeline as { series: { acked: number[]; processed: number[]; backlog: number[] } }).series;
      const busy = (xs: number[]) => xs.slice(1, -1).filter((n) => n > 0);
      const mean = (xs: number[]) => (xs.length ? Math.round(xs.reduce((a, b) => a + b, 0) / xs.length) : 0);
      const sent = series.acked.reduce((a, b) => a + b, 0);
      const processed = series.processed.reduce((a, b) => a + b, 0);
      const cpu = (record as unknown as { cpu?: Record<string, unknown> }).cpu;
      const drain = record.drain as { drained: boolean; waitedMs: number; reason: string } | undefined;
      const lat = (result.latency as { whole?: Record<string, { p50: number; p99: number }> }).whole;
      lines.push(
        `  ${tree.label}: acked ${sent}, processed ${processed}; acked ${mean(busy(series.acked))}/s, processed ${mean(busy(series.processed))}/s; backlog max ${Math.max(0, ...series.backlog)}, at the end of sending ${series.backlog[lastBusy(series.acked)] ?? 0}; ` +
          `drain ${drain ? `${drain.drained ? 'caught up' : 'NOT caught up'} in ${(drain.waitedMs / 1000).toFixed(1)} s (${drain.reason})` : '-'}; end-to-end p50 ${lat?.endToEnd ? (lat.endToEnd.p50 / 1000).toFixed(1) : '-'} ms p99 ${lat?.endToEnd ? (lat.endToEnd.p99 / 1000).toFixed(1) : '-'} ms; verdict ${(result.verdict as { status: string }).status}`,
      );
      if (cpu) lines.push(`      cpu: ${JSON.stringify(cpu)}`);
      lines.push(`      (${load()})`);
    }
  });
  lines.push(`at end: ${load()}`);
  return lines;
}
