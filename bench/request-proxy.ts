/**
 * What the request proxy costs while no request fault acts: the same producer run (librdkafka,
 * a fixed rate) on one Kafka node, through Toxiproxy alone and through Toxiproxy and the request
 * proxy, in interleaved rounds (CONVOY_BENCH_ROUNDS, default 5). Reports the median publish
 * latency p50 and the client's plus the proxy's CPU per 1000 messages, each arm's median and
 * the ratio of the medians. Toxiproxy's own CPU is shown beside them, as what a hop written in Go
 * costs; it is in both arms and in neither sum.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { loadBroker } from '../harness/broker/registry.ts';
import { cacheDir } from '../harness/runtime/cache.ts';
import { executeRun } from '../harness/runner/run.ts';
import { analyzeRun } from '../harness/runner/analyze.ts';
import type { Scenario } from '../harness/spec/types.ts';

const ROUNDS = Math.max(1, Number(process.env.CONVOY_BENCH_ROUNDS ?? 5));
const RATE = 2_000;
const MESSAGES = 20_000;

function cpuSeconds(pid: number | 'self', children = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (children ? Number(f[13]) + Number(f[14]) : Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** The processes whose command line includes `marker` (the request proxy's JVM, Toxiproxy). */
function pidsOf(marker: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

function scenario(name: string, messages: number): Scenario {
  return {
    name, description: 'benchmark', seed: 1,
    broker: { kind: 'kafka', client: 'confluent', topic: { partitions: 3 } },
    workload: {
      keys: { count: 1_000, distribution: { kind: 'uniform' }, prefix: 'k' },
      entity: { kind: 'counter', events: 'state', cancelShare: 0.25 }, rate: { kind: 'fixed', perSecond: RATE }, size: { kind: 'fixed', bytes: 256 },
      messages, warmupMs: 0, maxInFlight: 10_000,
      producers: [{ name: 'bench', processes: 1, sharedKeys: false }],
    },
    consumers: { processes: 0, handler: { kind: 'constant', ms: 0 }, concurrency: { mode: 'partition', workers: 1 }, strategy: 'versioned' },
    faults: [],
    expect: {},
    run: { drainTimeoutMs: 1_000, giveUpDelayMs: 2_000, maxDurationMs: 300_000, settleMs: 500 },
  } as unknown as Scenario;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** One arm's run: publish p50 (ms) and client + proxy CPU ms per 1000 messages beyond a 1-message run. */
/** Toxiproxy's CPU is shown beside the others, as what one Go hop costs, and is not in the sum. */
interface ArmResult { p50: number; cpuPer1k: number; clientPer1k: number; proxyPer1k: number; toxiproxyPer1k: number }

async function arm(resultsDir: string, requestProxy: boolean): Promise<ArmResult> {
  const kafka = await loadBroker('kafka');
  const settings = kafka.resolveSettings({ kind: 'kafka', client: 'confluent', requestProxy, topic: { partitions: 3 } });
  const d = await kafka.deploy({ runtime: 'local', workDir: join(resultsDir, `kafka-${requestProxy ? 'proxy' : 'direct'}`), cacheDir: cacheDir(), reuse: true, log: () => {} }, settings);
  try {
    const run = async (messages: number) => {
      const proxies = pidsOf('convoy.proxy.Main');
      const toxiproxies = pidsOf('/toxiproxy/');
      const toxiBefore = toxiproxies.reduce((a, p) => a + cpuSeconds(p), 0);
      const clientBefore = cpuSeconds('self', true);
      const proxyBefore = proxies.reduce((a, p) => a + cpuSeconds(p), 0);
      const s = scenario(`bench-proxy-${requestProxy ? 'on' : 'off'}`, messages);
      (s.broker as Record<string, unknown>).requestProxy = requestProxy;
      const record = await executeRun(s, { runtime: 'local', resultsDir, keep: false, allowDestructive: false, deployment: d });
      const result = await analyzeRun(record);
      const client = cpuSeconds('self', true) - clientBefore;
      const proxy = proxies.reduce((a, p) => a + cpuSeconds(p), 0) - proxyBefore;
      const toxiproxy = toxiproxies.reduce((a, p) => a + cpuSeconds(p), 0) - toxiBefore;
      return { client, proxy, toxiproxy, p50: (result.latency as { whole: Record<string, { p50: number }> }).whole.publish!.p50 / 1000 };
    };
    const base = await run(1);
    const full = await run(MESSAGES);
    const per1k = (full: number, base: number) => ((full - base) * 1e6) / (MESSAGES - 1);
    const clientPer1k = per1k(full.client, base.client);
    const proxyPer1k = per1k(full.proxy, base.proxy);
    return { p50: full.p50, cpuPer1k: clientPer1k + proxyPer1k, clientPer1k, proxyPer1k, toxiproxyPer1k: per1k(full.toxiproxy, base.toxiproxy) };
  } finally {
    await d.stop();
  }
}

export async function requestProxyCost(opts: { resultsDir: string }): Promise<string[]> {
  const load = () => `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (${cpus().length} CPUs)`;
  const lines = [`at start: ${load()}; ${MESSAGES} messages at ${RATE}/s per run, librdkafka producer, ${ROUNDS} interleaved rounds`];
  const off: ArmResult[] = [];
  const on: ArmResult[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate which arm goes first, so drift in the host's load falls on both.
    const order = round % 2 ? [false, true] : [true, false];
    for (const proxied of order) {
      const r = await arm(opts.resultsDir, proxied);
      (proxied ? on : off).push(r);
      lines.push(`  round ${round} ${proxied ? 'Toxiproxy + request proxy' : 'Toxiproxy only           '}: publish p50 ${r.p50.toFixed(2)} ms, client + proxy CPU ${r.cpuPer1k.toFixed(1)} ms per 1k msgs (client ${r.clientPer1k.toFixed(1)}, proxy ${r.proxyPer1k.toFixed(1)}; Toxiproxy ${r.toxiproxyPer1k.toFixed(1)}) (${load()})`);
    }
  }
  const m = (xs: ArmResult[], k: keyof ArmResult) => median(xs.map((x) => x[k]));
  lines.push(`median publish p50: ${m(off, 'p50').toFixed(2)} ms without, ${m(on, 'p50').toFixed(2)} ms with the request proxy: ratio ${(m(on, 'p50') / m(off, 'p50')).toFixed(2)}`);
  lines.push(`median client + proxy CPU per 1k msgs: ${m(off, 'cpuPer1k').toFixed(1)} ms without, ${m(on, 'cpuPer1k').toFixed(1)} ms with: ratio ${(m(on, 'cpuPer1k') / m(off, 'cpuPer1k')).toFixed(2)}`);
  lines.push(`at end: ${load()}`);
  return lines;
}
