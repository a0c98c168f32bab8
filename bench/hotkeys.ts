/**
 * `npm run bench -- hotkeys`: the arithmetic of hot keys and head-of-line blocking,
 * measured, each figure printed next to the arithmetic it checks (never asserted). Every run
 * here is an ordinary convoy run on the memory broker (brokers/memory, the in-process test
 * double): what is measured is the consumer side (handler time, concurrency mode, poison
 * policy), where the broker is not the point. Its hand-over of each lane's deliveries (over the worker's stream) is
 * this setup's own ceiling, named where it is the limit. One run at a time; about 15 runs of
 * 5-10 s plus their drains.
 *
 *   ceiling      one key, 20 ms handler, offered 200 msg/s, with 1 and 3 consumers
 *   concurrency  10 partitions, 50 ms handler: partition mode (10 consumers) and key mode over
 *                10,000 keys with 1, 4, 16, 64, 256 workers in one consumer
 *   hol          a poison message under each policy (retry, dead-letter, park-key): HOL victims
 *   defences     a hot key under one-at-a-time, conflate and batch: backlog, age, throughput, latency
 *   defences-kafka  the same three runs on one local Kafka node (a real broker: the pair batch vs
 *                one at a time measured in one command), then conflate and one at a time on
 *                orders with whole-state events; not in the default set (each run starts a node)
 */
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseScenario } from '../harness/scenario/load.ts';
import { scenarioCatalogue } from '../harness/cli/catalogue.ts';
import { runOnce } from '../harness/runner/run-and-analyze.ts';
import type { ConsumersSection, SeriesSection } from '../harness/checker/result-schema.ts';

const load = () => `load ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} CPUs`;

interface Measured {
  consumers: ConsumersSection;
  series: SeriesSection;
  measureStartUs: number;
  achievedRate: number;
  status: string;
  history: string;
}

/** One run of `yaml` (a scenario on the memory broker), analysed; its folder removed after. */
async function run(yaml: string, keep: (m: Measured) => Promise<void> | void = () => {}): Promise<Measured> {
  const { scenario } = await parseScenario(yaml, { catalogue: await scenarioCatalogue(), file: 'bench-hotkeys.yaml' });
  const dir = mkdtempSync(join(tmpdir(), 'convoy-bench-hotkeys-'));
  try {
    const { result, runDir } = await runOnce(scenario, { runtime: 'local', resultsDir: dir, keep: false, allowDestructive: false, repeat: 1, quiet: true });
    const r = result as unknown as { consumers: ConsumersSection; timeline: { series: SeriesSection; measureStartUs: number }; workload: { achievedRate: number }; verdict: { status: string } };
    const m = { consumers: r.consumers, series: r.timeline.series, measureStartUs: r.timeline.measureStartUs, achievedRate: r.workload.achievedRate, status: r.verdict.status, history: join(runDir, 'history.jsonl') };
    await keep(m);
    return m;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const base = (o: { keys: string; rate: string; seconds: number; broker?: string; consumers: string; entity?: string }) => `
seed: 11
broker: ${o.broker ?? '{ kind: memory, mode: partitioned, partitions: 4 }'}
workload:
  keys: ${o.keys}
  entity: ${o.entity ?? '{ kind: order }'}
  rate: ${o.rate}
  durationMs: ${o.seconds}s
  warmupMs: 500ms
consumers: ${o.consumers}
expect: { wrong-state: any }
run: { drainTimeoutMs: 5s, maxDurationMs: 2m }
`;

/** Processed messages per second while the producers sent (whole seconds, the first left out). */
function processedWhileSending(m: Measured, seconds: number): number {
  const xs = m.series.processed.slice(1, seconds);
  return Math.round(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length));
}

async function ceiling(out: (l: string) => void) {
  out('== per-key ceiling: one key, 20 ms handler, offered 200 msg/s for 5 s (at most 1 / 0.02 s = 50 msg/s however many consumers; backlog +150/s)');
  for (const processes of [1, 3]) {
    const m = await run(base({ keys: '{ count: 1, distribution: { kind: single } }', rate: '{ kind: fixed, perSecond: 200 }', seconds: 5, consumers: `{ processes: ${processes}, handler: { kind: constant, ms: 20 }, concurrency: { mode: key, workers: 8 } }` }));
    const h = m.consumers.hotKey!;
    out(`  ${processes} consumer${processes > 1 ? 's' : ' '}: offered ${h.offeredPerSecond}/s, handled ${h.handledPerSecond}/s (arithmetic 50), backlog +${h.backlogGrowthPerSecond}/s (arithmetic ${(h.offeredPerSecond - 50).toFixed(0)}), oldest unprocessed ${h.oldestUnprocessedMsAtEndOfSending} ms at the end of sending  [memory broker; ${load()}]`);
  }
}

async function concurrency(out: (l: string) => void) {
  out('== key-level concurrency: 10 partitions, 50 ms handler (Parallel Consumer README: 1 s / 50 ms x 10 = 200 msg/s in partition mode; key mode rises with workers until something else limits it)');
  const broker = '{ kind: memory, mode: partitioned, partitions: 10 }';
  const keys = '{ count: 10000 }';
  const m = await run(base({ broker, keys, rate: '{ kind: fixed, perSecond: 400 }', seconds: 5, consumers: '{ processes: 10, handler: { kind: constant, ms: 50 }, concurrency: { mode: partition } }' }));
  out(`  partition mode, 10 consumers (one per partition), offered 400/s: processed ${processedWhileSending(m, 5)}/s (arithmetic 200)  [memory broker; ${load()}]`);
  let best = 0;
  for (const workers of [1, 4, 16, 64, 256]) {
    const ideal = workers * 20;
    const offered = Math.min(3000, Math.max(100, ideal * 2));
    const r = await run(base({ broker, keys, rate: `{ kind: fixed, perSecond: ${offered} }`, seconds: 4, consumers: `{ processes: 1, handler: { kind: constant, ms: 50 }, concurrency: { mode: key, workers: ${workers} } }` }));
    const got = processedWhileSending(r, 4);
    best = Math.max(best, got);
    out(`  key mode, 1 consumer, ${String(workers).padStart(3)} workers, offered ${offered}/s (sent ${r.achievedRate}/s): processed ${got}/s (arithmetic ${workers} x 20 = ${ideal})  [${load()}]`);
  }
  out(`  limit found: about ${best} msg/s; past it the workers wait on the memory broker's hand-over (one round trip on the worker's stream per delivery per lane) and the host's 2 loaded cores, not on the 50 ms handler`);
}

async function hol(out: (l: string) => void) {
  out('== head-of-line victims under a poison message: 4 partitions, 4 consumers in partition mode, 200 msg/s over 100 keys, 1 ms handler, 0.5% poison (a blocked partition at 500 msg/s for 300 s leaves 500 x 300 = 150,000 victims)');
  const policies: [string, string][] = [
    ['retry (block, 5 attempts, 100 ms doubling)', 'policy: retry, maxAttempts: 5, backoffMs: 100ms'],
    ['dead-letter', 'policy: dead-letter'],
    ['park-key', 'policy: park-key'],
  ];
  for (const [label, policy] of policies) {
    const m = await run(base({ keys: '{ count: 100 }', rate: '{ kind: fixed, perSecond: 200 }', seconds: 5, consumers: `{ processes: 4, handler: { kind: constant, ms: 1 }, concurrency: { mode: partition }, poison: { share: 0.005, ${policy} } }` }));
    const v = m.consumers.holVictims as { blockers: number; blockedMs: number; victims: number; victimKeys: number; addedMsMean: number; addedMsMax: number };
    const expected = Math.round((200 / 4) * (v.blockedMs / 1000));
    out(`  ${label.padEnd(44)}: ${v.blockers} messages failed, blocking their lanes ${v.blockedMs} ms in all beyond a normal handling; HOL victims ${v.victims} (${v.victimKeys} keys), added latency mean ${v.addedMsMean} ms, max ${v.addedMsMax} ms (arithmetic: lane rate 50/s x ${(v.blockedMs / 1000).toFixed(2)} s = ${expected})`);
  }
}

/** `key`'s commit latency, ms, of its messages intended in [from, to): end - intended, and in the consumer, end - received. */
async function latencies(history: string, key: string, from: number, to: number): Promise<{ total: number[]; consumer: number[] }> {
  const total: number[] = [];
  const consumer: number[] = [];
  for await (const line of createInterface({ input: createReadStream(history), crlfDelay: Infinity })) {
    if (!line.includes('"process"') || !line.includes(`"key":"${key}"`)) continue;
    const e = JSON.parse(line) as { outcome?: string; intended?: number; received?: number; end?: number };
    if (e.outcome !== 'ok' || e.intended === undefined || e.end === undefined || e.intended < from || e.intended >= to) continue;
    total.push((e.end - e.intended) / 1000);
    if (e.received !== undefined) consumer.push((e.end - e.received) / 1000);
  }
  return { total: total.sort((a, b) => a - b), consumer: consumer.sort((a, b) => a - b) };
}
const pct = (xs: number[], p: number) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]! : NaN);

const HOT_MODES = [
  ['one at a time (key mode)', '{ mode: key, workers: 4 }'],
  ['batch (max 50, linger 50 ms)', '{ mode: batch, workers: 4, batchMax: 50, batchLingerMs: 50 }'],
  ['conflate', '{ mode: conflate, workers: 4 }'],
] as const;

/**
 * A hot key under each mode: 3 s under the ceiling (k0's commit latency: what batching adds),
 * then 3 s at 4x over it (throughput, k0's backlog and oldest unprocessed age).
 */
async function defences(out: (l: string) => void, broker?: string, entity = '{ kind: wallet, events: change }', strategy = 'commutative-dedup', modes: readonly (readonly [string, string])[] = HOT_MODES) {
  out(`== hot-key defences${broker ? ` on ${broker}` : ''}: key k0 gets 80% of the traffic, 40 ms handler (one at a time at most 25 msg/s); 3 s at 10 msg/s (k0 8/s, well under the ceiling), then 3 s at 125 msg/s (k0 100/s, 4x over), ${entity} with strategy ${strategy}, in one run each`);
  for (const [label, mode] of modes) {
    await run(
      base({
        broker,
        keys: '{ count: 21, distribution: { kind: hotspot, hotKeys: 1, share: 0.8 } }',
        rate: '{ kind: steps, steps: [{ perSecond: 10, forMs: 3500ms }, { perSecond: 125, forMs: 3s }] }',
        seconds: 6,
        consumers: `{ processes: 1, handler: { kind: constant, ms: 40 }, concurrency: ${mode}, strategy: ${strategy} }`,
        entity,
      }),
      async (m) => {
        const h = m.consumers.hotKey!;
        const c = m.consumers.costs;
        const split = m.measureStartUs + 3_000_000;
        const { total, consumer } = await latencies(m.history, h.key, m.measureStartUs, split);
        const busy = m.series.processed.slice(4, 6);
        out(
          `  ${label.padEnd(30)}: under the ceiling k0 commit latency (end - intended) p50 ${pct(total, 50).toFixed(0)} ms p99 ${pct(total, 99).toFixed(0)} ms, in the consumer (end - received) p50 ${pct(consumer, 50).toFixed(0)} ms p99 ${pct(consumer, 99).toFixed(0)} ms; over it all keys processed ${Math.round(busy.reduce((a, b) => a + b, 0) / Math.max(1, busy.length))}/s, ` +
            `k0 handled ${h.handledPerSecond}/s, backlog +${h.backlogGrowthPerSecond}/s, max ${h.backlogMax}, oldest unprocessed max ${h.oldestUnprocessedMsMax} ms; ${c.messagesPerTransaction} messages per transaction, ${c.conflated} conflated; verdict ${m.status}  [${load()}]`,
        );
      },
    );
  }
}

const KAFKA = '{ kind: kafka, client: confluent, topic: { partitions: 4 } }';

async function defencesKafka(out: (l: string) => void) {
  await defences(out, KAFKA);
  await defences(out, KAFKA, '{ kind: order, events: state }', 'versioned', HOT_MODES.filter(([, m]) => !m.includes('batch')));
}

export async function hotKeyBench(parts: string[], out: (l: string) => void): Promise<void> {
  const all = parts.length === 0;
  out(`at start: ${load()}`);
  if (all || parts.includes('ceiling')) await ceiling(out);
  if (all || parts.includes('concurrency')) await concurrency(out);
  if (all || parts.includes('hol')) await hol(out);
  if (all || parts.includes('defences')) await defences(out);
  if (parts.includes('defences-kafka')) await defencesKafka(out);
  out(`at end: ${load()}`);
}
