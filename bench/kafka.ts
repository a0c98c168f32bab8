import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Deployment } from '../harness/broker/contract.ts';
import { loadBroker } from '../harness/broker/registry.ts';
import { cacheDir } from '../harness/runtime/cache.ts';
import { executeRun } from '../harness/runner/run.ts';
import { analyzeRun } from '../harness/runner/analyze.ts';
import type { Scenario } from '../harness/scenario/types.ts';
import { provision, toolCommand, PRODUCER_PERFORMANCE } from '../brokers/kafka/provision.ts';

const RECORDS = 200_000;
const SIZE = 256;

async function withKafka<T>(resultsDir: string, fn: (d: Deployment) => Promise<T>): Promise<T> {
  const kafka = await loadBroker('kafka');
  const settings = kafka.resolveSettings({ kind: 'kafka' });
  const d = await kafka.deploy({ runtime: 'local', workDir: join(resultsDir, 'kafka'), cacheDir: cacheDir(), reuse: true, log: () => {} }, settings);
  try {
    return await fn(d);
  } finally {
    await d.stop();
  }
}

function scenario(name: string, client: string, rate: Scenario['workload']['rate'], opts: { messages?: number; durationMs?: number; keys?: number; consumers?: number }): Scenario {
  return {
    name, description: 'benchmark', seed: 1,
    broker: { kind: 'kafka', client, topic: { partitions: 3 } },
    workload: {
      keys: { count: opts.keys ?? 10_000, distribution: { kind: 'uniform' }, prefix: 'k' },
      entity: { kind: 'counter' }, rate, size: { kind: 'fixed', bytes: SIZE },
      messages: opts.messages, durationMs: opts.durationMs, warmupMs: 0, maxInFlight: 100_000,
      producers: [{ name: 'bench', processes: 1, sharedKeys: false }],
    },
    // No consumer: the Java tool has none either, and on 2 cores one would take half the CPU.
    consumers: { processes: opts.consumers ?? 0, handler: { kind: 'constant', ms: 0 }, concurrency: { mode: 'partition', workers: 1 }, strategy: 'versioned' },
    faults: [],
    expect: {},
    run: { drainTimeoutMs: opts.consumers ? 20_000 : 1_000, maxDurationMs: 600_000, settleMs: 1000 },
  };
}

async function convoyRun(d: Deployment, resultsDir: string, s: Scenario) {
  const record = await executeRun(s, { runtime: 'local', resultsDir, keep: false, allowDestructive: false, deployment: d });
  const result = await analyzeRun(record);
  const acks = (result.timeline as { series: { acked: number[] } }).series.acked;
  const lat = (result.latency as { whole: Record<string, { p50: number; p99: number }> }).whole;
  return { result, acks, lat };
}

/** Peak per-second acked rate, and the mean over the seconds that were fully busy. */
function sustained(acks: number[]): number {
  const busy = acks.slice(1, -1).filter((n) => n > 0);
  return busy.length ? Math.round(busy.reduce((a, b) => a + b, 0) / busy.length) : Math.max(0, ...acks);
}

export async function producerThroughput(opts: { resultsDir: string }): Promise<string[]> {
  const lines: string[] = [];
  const inst = provision(undefined, { tools: true });
  await withKafka(opts.resultsDir, async (d) => {
    const bootstrap = (d.endpoint as { bootstrapServers: string[] }).bootstrapServers.join(',');
    // The Java tool, through the same Toxiproxy path as convoy's clients. It has no keys.
    // The broker does not create topics on first use: make the tool's topic like a run's.
    const names = { runId: 'bench-perf', prefix: 'convoy-bench-perf' };
    const kafka = await loadBroker('kafka');
    const admin = await kafka.admin(d.endpoint, kafka.resolveSettings({ kind: 'kafka', topic: { partitions: 3 } }), names);
    await admin.createDestinations();
    const topic = names.prefix;
    const cmd = toolCommand(inst, PRODUCER_PERFORMANCE, [
      '--topic', topic, '--num-records', String(RECORDS), '--record-size', String(SIZE), '--throughput', '-1',
      '--producer-props', `bootstrap.servers=${bootstrap}`, 'acks=all',
    ]);
    const t0 = Date.now();
    const r = spawnSync(cmd.command, cmd.args, { encoding: 'utf8', timeout: 180_000 });
    const summary = (r.stdout ?? '').trim().split('\n').filter((l) => /records sent/.test(l)).pop() ?? `failed: ${(r.stderr ?? '').split('\n').slice(-3).join(' ')}`;
    const javaRate = Number(/([\d.]+) records\/sec/.exec(summary)?.[1] ?? 0);
    lines.push(`kafka-producer-perf-test (unkeyed, ${SIZE} B, acks=all): ${summary}  [${((Date.now() - t0) / 1000).toFixed(0)} s]`);
    await admin.deleteDestinations();
    await admin.close();
    for (const client of ['confluent', 'kafkajs']) {
      const { result, acks, lat } = await convoyRun(d, opts.resultsDir, scenario(`bench-${client}`, client, { kind: 'unlimited' }, { messages: RECORDS }));
      const rate = sustained(acks);
      lines.push(
        `convoy ${client.padEnd(9)} (keyed, 10k keys, ${SIZE} B, acks=all): ${rate} msg/s sustained, publish p50 ${(lat.publish.p50 / 1000).toFixed(1)} ms p99 ${(lat.publish.p99 / 1000).toFixed(1)} ms` +
          `  ratio to the Java tool ${javaRate ? (rate / javaRate).toFixed(2) : '-'}`,
      );
    }
  });
  return lines;
}

export async function rateAccuracy(opts: { resultsDir: string }): Promise<string[]> {
  const lines: string[] = [];
  await withKafka(opts.resultsDir, async (d) => {
    for (const target of [1_000, 10_000, 50_000]) {
      const { result, lat } = await convoyRun(d, opts.resultsDir, scenario(`rate-${target}`, 'confluent', { kind: 'fixed', perSecond: target }, { durationMs: 10_000 }));
      const w = result.workload as { achievedRate: number };
      lines.push(
        `target ${String(target).padStart(6)}/s: achieved ${String(w.achievedRate).padStart(6)}/s (${((w.achievedRate / target) * 100).toFixed(1)}%), publish delay p50 ${(lat.publishDelay.p50 / 1000).toFixed(2)} ms p99 ${(lat.publishDelay.p99 / 1000).toFixed(1)} ms, harness verdict on its own rate: ${rateVerdict(result)}`,
      );
    }
  });
  return lines;
}

/** Whether the harness kept its schedule (its unknown reasons), apart from what the checker found. */
function rateVerdict(result: Record<string, unknown>): string {
  const reasons = ((result.harness as { incomplete?: string[] } | undefined)?.incomplete ?? []).filter((r) => /rate|lagged|planned/.test(r));
  return reasons.length ? `not kept (${reasons.join('; ')})` : 'kept';
}
