/**
 * `npm run bench -- kafka`: one table of every Kafka client convoy has (KAFKA_CLIENTS), as
 * producer and as consumer, each beside its bare client (bench/bare/: the library alone,
 * nothing per message) and the Java perf tools, on one local Kafka node.
 *
 * Producer rows (256 B, acks=all, 10k keys; RECORDS messages each):
 *   - kafka-producer-perf-test with the sticky partitioner (its default), and with
 *     RoundRobinPartitioner (unkeyed records spread over the partitions in turn, as convoy's
 *     uniform keys spread them);
 *   - per client: its bare producer, and convoy's producer (a whole run: the producer worker
 *     with its history; no consumer).
 * Consumer rows (one topic of 6 partitions preloaded with CONSUMED convoy-encoded messages):
 *   - kafka-consumer-perf-test (its fetch rate, which leaves out its group join);
 *   - per client: its bare consumer, and convoy's consumer worker (partition mode, 0 ms
 *     handler, history and store on, versioned strategy).
 *
 * Every row is measured once per round, the rounds interleaved (the order reversed every other
 * round), so each ratio compares neighbours. Per row: the median and range of the rate and of
 * the client's CPU per 1,000 messages (the perf tools' and convoy's producer runs beyond a
 * 1-message run's CPU; the bare clients and convoy's consumer over their busy window: from the
 * first message, or for convoy's worker its first stats report with messages applied, to the
 * last), and the median of the per-round ratios to the perf tool and to the bare client. Then
 * the targets:
 * convoy's consumer CPU at most 1.8x its bare client's; the best Node producer at 0.9 of the
 * perf tool's rate (or of its bare client's, where that is lower) and at most 1.3x its CPU.
 *
 * CONVOY_BENCH_ROUNDS (default 3), CONVOY_BENCH_MESSAGES (producer rows, default 200000),
 * CONVOY_BENCH_CONSUME_MESSAGES (consumer rows, default 300000: convoy's consumer is measured
 * from its first stats report, made every 500 ms, and 100k messages left it a busy window of
 * about half a second), CONVOY_BENCH_CLIENTS (a subset of the clients). CONVOY_BENCH_JSON=<dir> (default results/bench) receives the figures as
 * github-action-benchmark's custom formats: kafka-rate.json (bigger is better) and
 * kafka-cost.json (smaller is better).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Deployment } from '../harness/broker/contract.ts';
import { loadBroker } from '../harness/broker/registry.ts';
import type { BenchmarkPoint } from '../harness/report/dashboard/benchmark.ts';
import { KAFKA_CLIENTS } from '../brokers/kafka/client-defaults.ts';
import type { KafkaAdmin } from '../brokers/kafka/admin.ts';
import { provision, toolCommand, PRODUCER_PERFORMANCE } from '../brokers/kafka/provision.ts';
import { BARE_CLIENTS } from './bare/clients.ts';
import { convoyConsumer, javaConsumer, median, preload, trees } from './consume.ts';
import { convoyRun, JAVA_VARIANTS, load, scenario, withCpu, withKafka, type Cpu } from './kafka.ts';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
const SIZE = 256;
const KEYS = 10_000;
const MAX_IN_FLIGHT = 10_000;
const CONSUMER_PARTITIONS = 6;

/** What one bench measures: the environment's settings unless given (the CI smoke gives its own). */
export interface TableOptions {
  rounds: number;
  /** Messages per producer row. */
  records: number;
  /** Messages preloaded and read per consumer row. */
  consumed: number;
  clients: readonly string[];
  /** Where the JSON goes. */
  jsonDir: string;
  /**
   * Measure the 1-message runs whose CPU the perf tools' and convoy's producer rows leave out
   * (default true). The CI smoke goes without: three process starts fewer, its CPU figures gross.
   */
  baselines?: boolean;
}

export function tableOptions(env: NodeJS.ProcessEnv = process.env): TableOptions {
  const wanted = env.CONVOY_BENCH_CLIENTS?.split(',');
  return {
    rounds: Math.max(1, Number(env.CONVOY_BENCH_ROUNDS ?? 3)),
    records: Number(env.CONVOY_BENCH_MESSAGES ?? 200_000),
    consumed: Number(env.CONVOY_BENCH_CONSUME_MESSAGES ?? 300_000),
    clients: KAFKA_CLIENTS.filter((c) => !wanted || wanted.includes(c)),
    jsonDir: resolve(env.CONVOY_BENCH_JSON ?? join('results', 'bench')),
  };
}

type Role = 'producer' | 'consumer';
type Kind = 'tool' | 'bare' | 'convoy';
interface Measure {
  rate: number;
  cpuPer1k: number;
  note?: string;
}
interface Row {
  role: Role;
  kind: Kind;
  client?: string;
  label: string;
  measure: () => Promise<Measure>;
  readings: Measure[];
}

/** A bare client (bench/bare/) as a child process, reading or writing `messages` on `topic`. */
function bare(file: string, bootstrap: string, topic: string, group: string, messages: number): Measure {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'bench', 'bare', file), bootstrap, topic, group, String(messages), String(SIZE), String(KEYS), String(MAX_IN_FLIGHT)], {
    encoding: 'utf8',
    timeout: 180_000,
    cwd: REPO,
  });
  const line = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  try {
    const o = JSON.parse(line) as { messages: number; firstMs: number; lastMs: number; cpuMs: number };
    const note = o.messages < messages ? `read ${o.messages} of ${messages}` : undefined;
    return { rate: o.messages / Math.max(1e-3, (o.lastMs - o.firstMs) / 1000), cpuPer1k: (o.cpuMs * 1000) / Math.max(1, o.messages), note };
  } catch {
    return { rate: 0, cpuPer1k: 0, note: `failed: ${`${line} ${(r.stderr ?? '').trim().split('\n').slice(-2).join(' ')}`.trim().slice(0, 300)}` };
  }
}

/** CPU ms per 1,000 messages of a run beyond a 1-message run's. */
const beyond = (run: Cpu, base: Cpu, messages: number) => (Math.max(0, run.client - base.client) * 1e6) / Math.max(1, messages - 1);

/** The producer rows: the perf tool with each partitioner, then each client's bare producer and convoy's. */
async function producerRows(o: TableOptions, d: Deployment, resultsDir: string, bootstrap: string, topic: string): Promise<Row[]> {
  const RECORDS = o.records;
  const inst = provision(undefined, { tools: true });
  const javaTool = (records: number, props: readonly string[]): Measure => {
    const cmd = toolCommand(inst, PRODUCER_PERFORMANCE, [
      '--topic', topic, '--num-records', String(records), '--record-size', String(SIZE), '--throughput', '-1',
      '--producer-props', `bootstrap.servers=${bootstrap}`, 'acks=all', ...props,
    ]);
    const r = spawnSync(cmd.command, cmd.args, { encoding: 'utf8', timeout: 180_000 });
    const summary = (r.stdout ?? '').trim().split('\n').filter((l) => /records sent/.test(l)).pop();
    return summary ? { rate: Number(/([\d.]+) records\/sec/.exec(summary)?.[1] ?? 0), cpuPer1k: 0 } : { rate: 0, cpuPer1k: 0, note: `failed: ${(r.stderr ?? '').trim().split('\n').slice(-2).join(' ').slice(0, 300)}` };
  };
  const rows: Row[] = [];
  const none = { client: 0, broker: 0, proxy: 0, wallS: 0 };
  const javaBase = o.baselines === false ? none : await withCpu(() => javaTool(1, []));
  for (const [label, props] of JAVA_VARIANTS) {
    rows.push({
      role: 'producer', kind: 'tool', label: `kafka-producer-perf-test (${label.replace('unkeyed, ', '')})`, readings: [],
      measure: async () => {
        const r = await withCpu(() => javaTool(RECORDS, props));
        return { ...r.value, cpuPer1k: beyond(r, javaBase, RECORDS) };
      },
    });
  }
  for (const client of o.clients as typeof KAFKA_CLIENTS) {
    const file = BARE_CLIENTS[client]?.producer;
    if (file) rows.push({ role: 'producer', kind: 'bare', client, label: `bare ${client}`, readings: [], measure: async () => bare(file, bootstrap, topic, '', RECORDS) });
    const base = o.baselines === false ? none : await withCpu(() => convoyRun(d, resultsDir, scenario(`bench-${client}-base`, client, { kind: 'unlimited' }, { messages: 1 })));
    rows.push({
      role: 'producer', kind: 'convoy', client, label: `convoy ${client}`, readings: [],
      measure: async () => {
        const r = await withCpu(() => convoyRun(d, resultsDir, scenario(`bench-${client}`, client, { kind: 'unlimited' }, { messages: RECORDS })));
        const w = r.value.result.workload as { sent: number };
        // As the perf tool counts: acknowledged messages from the first send to the last ack.
        const rate = r.value.acked.rate;
        const notes = [w.sent < RECORDS ? `sent ${w.sent} of ${RECORDS}` : '', r.value.acked.messages < w.sent ? `acked ${r.value.acked.messages} of ${w.sent}` : ''].filter(Boolean);
        return { rate, cpuPer1k: beyond(r, base, RECORDS), note: notes.join(', ') || undefined };
      },
    });
  }
  return rows;
}

/** The consumer rows: the perf tool, then each client's bare consumer and convoy's consumer worker. */
function consumerRows(o: TableOptions, d: Deployment, resultsDir: string, bootstrap: string, admin: KafkaAdmin, names: { runId: string; prefix: string }): Row[] {
  const CONSUMED = o.consumed;
  const inst = provision(undefined, { tools: true });
  const javaBase = o.baselines === false ? { cpu: 0 } : javaConsumer(inst, bootstrap, names.prefix, 'bench-java-base', 1);
  let groups = 0;
  const rows: Row[] = [
    {
      role: 'consumer', kind: 'tool', label: 'kafka-consumer-perf-test', readings: [],
      measure: async () => {
        const r = javaConsumer(inst, bootstrap, names.prefix, `bench-java-${++groups}`, CONSUMED);
        if (!r.ok) return { rate: 0, cpuPer1k: 0, note: `failed: ${r.error.slice(0, 300)}` };
        return { rate: r.fetchRate, cpuPer1k: (Math.max(0, r.cpu - javaBase.cpu) * 1e6) / CONSUMED };
      },
    },
  ];
  const tree = trees(resultsDir).pop()!; // this checkout
  for (const client of o.clients as typeof KAFKA_CLIENTS) {
    const file = BARE_CLIENTS[client]?.consumer;
    if (file) rows.push({ role: 'consumer', kind: 'bare', client, label: `bare ${client}`, readings: [], measure: async () => bare(file, bootstrap, names.prefix, `bench-bare-${++groups}`, CONSUMED) });
    rows.push({
      role: 'consumer', kind: 'convoy', client, label: `convoy ${client} (partition mode)`, readings: [],
      measure: async () => {
        const r = await convoyConsumer(tree, d, admin, names, client, 'partition', resultsDir, CONSUMED);
        // Over the busy window, as the bare clients measure theirs.
        return { rate: r.rate, cpuPer1k: r.busyCpuPer1k ?? r.cpuPer1k, note: r.note };
      },
    });
  }
  return rows;
}

const range = (xs: number[], digits: number) => (xs.length ? `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})` : '-');
const ratios = (a: Row, b: Row | undefined, key: keyof Omit<Measure, 'note'>) =>
  b ? a.readings.flatMap((r, i) => (r[key] > 0 && (b.readings[i]?.[key] ?? 0) > 0 ? [r[key] / b.readings[i]![key]] : [])) : [];

/** The summary: a table per role, then the targets. */
function table(o: TableOptions, rows: Row[]): { lines: string[]; points: { rate: BenchmarkPoint[]; cost: BenchmarkPoint[] } } {
  const lines: string[] = [];
  const points = { rate: [] as BenchmarkPoint[], cost: [] as BenchmarkPoint[] };
  const extra = `median of ${o.rounds} interleaved rounds; ${SIZE} B, acks=all, ${KEYS} keys`;
  for (const role of ['producer', 'consumer'] as const) {
    const mine = rows.filter((r) => r.role === role);
    const tools = mine.filter((r) => r.kind === 'tool');
    lines.push('', `${role} (${role === 'producer' ? `${o.records} messages` : `${o.consumed} messages, ${CONSUMER_PARTITIONS} partitions`}), median (range) over ${o.rounds} rounds:`);
    lines.push(
      `  ${'row'.padEnd(42)} ${'msg/s'.padEnd(24)} ${'client CPU ms/1k msgs'.padEnd(22)} ${tools.map((t) => `rate / ${t.label.replace('kafka-', '').replace('-perf-test', '-perf')}`.padEnd(30)).join(' ')} rate, CPU / bare`,
    );
    for (const r of mine) {
      const bareRow = r.kind === 'convoy' ? mine.find((b) => b.kind === 'bare' && b.client === r.client) : undefined;
      const notes = [...new Set(r.readings.flatMap((m) => (m.note ? [m.note] : [])))];
      lines.push(
        `  ${r.label.padEnd(42)} ${range(r.readings.map((m) => Math.round(m.rate)), 0).padEnd(24)} ${range(r.readings.map((m) => m.cpuPer1k), 1).padEnd(22)} ` +
          `${tools.map((t) => (r === t ? '' : range(ratios(r, t, 'rate'), 2)).padEnd(30)).join(' ')} ${bareRow ? `${range(ratios(r, bareRow, 'rate'), 2)}, ${range(ratios(r, bareRow, 'cpuPer1k'), 2)}` : ''}${notes.length ? `  [${notes.join('; ')}]` : ''}`,
      );
      const name = `kafka ${role}: ${r.label}`;
      if (r.readings.some((m) => m.rate > 0)) points.rate.push({ name: `${name} rate`, unit: 'msg/s', value: Math.round(median(r.readings.map((m) => m.rate))), extra });
      if (r.readings.some((m) => m.cpuPer1k > 0)) points.cost.push({ name: `${name} client CPU per 1k msgs`, unit: 'ms', value: Number(median(r.readings.map((m) => m.cpuPer1k)).toFixed(2)), extra });
      if (bareRow) {
        const cpu = ratios(r, bareRow, 'cpuPer1k');
        if (cpu.length) points.cost.push({ name: `${name} client CPU / bare ${r.client}'s`, unit: 'ratio', value: Number(median(cpu).toFixed(3)), extra });
      }
    }
  }
  lines.push('', ...targets(rows));
  return { lines, points };
}

/** The client whose consumer path the consumer target is set on: the librdkafka binding. */
const TARGET_CONSUMER = 'confluent';

/** The targets, each with its figure: met, or not met. */
function targets(rows: Row[]): string[] {
  const out = ['targets (medians of the per-round ratios):'];
  // NaN (no figure: a row failed in every round) is neither met nor not met.
  const verdict = (ok: boolean, figure: number) => (Number.isNaN(figure) ? 'no figure' : ok ? 'met' : 'NOT met');
  for (const c of rows.filter((r) => r.role === 'consumer' && r.kind === 'convoy')) {
    const b = rows.find((r) => r.role === 'consumer' && r.kind === 'bare' && r.client === c.client);
    const cpu = ratios(c, b!, 'cpuPer1k');
    if (!b || !cpu.length) continue;
    // The target is set on the librdkafka binding's path; the other clients' bare consumers
    // decode in a prefetch of their own, so their ratios are shown, not judged.
    const judged = c.client === TARGET_CONSUMER
      ? `(target <= 1.8, aim 1.5): ${verdict(median(cpu) <= 1.8, median(cpu))}`
      : `(no target: it is set on the ${TARGET_CONSUMER} binding's path)`;
    out.push(`  consumer, convoy ${c.client} client CPU per 1k msgs / bare ${c.client}'s: ${median(cpu).toFixed(2)} ${judged}`);
  }
  const tools = rows.filter((r) => r.role === 'producer' && r.kind === 'tool');
  const nodeProducers = rows.filter((r) => r.role === 'producer' && r.kind === 'convoy' && r.client !== 'java' && r.readings.length);
  const best = nodeProducers.sort((a, b) => median(b.readings.map((m) => m.rate)) - median(a.readings.map((m) => m.rate)))[0];
  if (best) {
    const b = rows.find((r) => r.role === 'producer' && r.kind === 'bare' && r.client === best.client);
    for (const t of tools) {
      const rate = median(ratios(best, t, 'rate'));
      const cpu = median(ratios(best, t, 'cpuPer1k'));
      const bareRate = b ? median(ratios(b, t, 'rate')) : Infinity;
      // Where the client alone cannot reach the tool, convoy is held to 0.9 of the client alone.
      const held = bareRate < 1 ? `0.9 of bare ${best.client}'s ${bareRate.toFixed(2)} = ${(0.9 * bareRate).toFixed(2)}` : '0.9';
      const want = bareRate < 1 ? 0.9 * bareRate : 0.9;
      out.push(`  producer, best Node client (convoy ${best.client}) / ${t.label}: rate ${rate.toFixed(2)} (target >= ${held}): ${verdict(rate >= want, rate)}; client CPU per 1k msgs ${cpu.toFixed(2)} (target <= 1.3): ${verdict(cpu <= 1.3, cpu)}`);
    }
    if (b) out.push(`  producer, convoy ${best.client} / bare ${best.client}: rate ${median(ratios(best, b, 'rate')).toFixed(2)}, client CPU ${median(ratios(best, b, 'cpuPer1k')).toFixed(2)}`);
  }
  return out;
}

export async function kafkaTable(opts: { resultsDir: string; deployment?: Deployment; options?: TableOptions }): Promise<string[]> {
  const o = opts.options ?? tableOptions();
  const lines: string[] = [`clients: ${o.clients.join(', ')}; ${o.rounds} rounds; at start: ${load()}`];
  const body = async (d: Deployment) => {
    const bootstrap = (d.endpoint as { bootstrapServers: string[] }).bootstrapServers.join(',');
    const kafka = await loadBroker('kafka');
    // Topics of this bench alone: nothing to delete first (deleting a topic that is not there
    // waits out the admin client's retries).
    const tag = `${process.pid}-${Date.now().toString(36)}`;
    const produced = { runId: `bench-table-produce-${tag}`, prefix: `convoy-bench-table-produce-${tag}` };
    const consumed = { runId: `bench-table-consume-${tag}`, prefix: `convoy-bench-table-consume-${tag}` };
    const pAdmin = (await kafka.admin(d.endpoint, kafka.resolveSettings({ kind: 'kafka', topic: { partitions: 3 } } as never), produced)) as unknown as KafkaAdmin;
    const cAdmin = (await kafka.admin(d.endpoint, kafka.resolveSettings({ kind: 'kafka', topic: { partitions: CONSUMER_PARTITIONS } } as never), consumed)) as unknown as KafkaAdmin;
    try {
      const t0 = Date.now();
      for (const a of [pAdmin, cAdmin]) await a.createDestinations();
      const preloadS = await preload(d, consumed, o.consumed);
      lines.push(`topics made in ${((Date.now() - t0) / 1000 - preloadS).toFixed(1)} s; the consumer topic preloaded with ${o.consumed} messages in ${preloadS.toFixed(1)} s`);
      const rows = [...(await producerRows(o, d, opts.resultsDir, bootstrap, produced.prefix)), ...consumerRows(o, d, opts.resultsDir, bootstrap, cAdmin, consumed)];
      for (let round = 1; round <= o.rounds; round++) {
        lines.push(`round ${round} of ${o.rounds} (${load()})`);
        for (const r of round % 2 === 1 ? rows : [...rows].reverse()) {
          const t = Date.now();
          const m = await r.measure();
          r.readings.push(m);
          lines.push(`  ${r.role} ${r.label.padEnd(42)} ${String(Math.round(m.rate)).padStart(7)} msg/s, client CPU ${m.cpuPer1k.toFixed(1)} ms per 1k msgs${m.note ? ` (${m.note})` : ''}  [${((Date.now() - t) / 1000).toFixed(1)} s]`);
        }
      }
      const t = table(o, rows);
      lines.push(...t.lines);
      const dir = o.jsonDir;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'kafka-rate.json'), JSON.stringify(t.points.rate, null, 2) + '\n');
      writeFileSync(join(dir, 'kafka-cost.json'), JSON.stringify(t.points.cost, null, 2) + '\n');
      lines.push(`figures written to ${join(dir, 'kafka-rate.json')} (bigger is better) and ${join(dir, 'kafka-cost.json')} (smaller is better)`);
    } finally {
      for (const a of [pAdmin, cAdmin]) {
        await a.deleteDestinations().catch(() => {});
        await a.close();
      }
    }
  };
  const started = Date.now();
  if (opts.deployment) await body(opts.deployment);
  else await withKafka(opts.resultsDir, body);
  lines.push(`at end: ${load()}; ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
  return lines;
}
