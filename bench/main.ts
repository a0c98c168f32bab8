/**
 * `npm run bench`: convoy's speed figures, measured side by side in one run (these machines
 * are shared and noisy: compare ratios, not absolute numbers across runs).
 *
 *   checker      events/s in process and lines/s from a file; peak RSS for 10M events
 *   throughput   the rate convoy's producers sustain against a single Kafka node, per client,
 *                next to kafka-producer-perf-test (ProducerPerformance) on the same broker
 *   kafka        one table of every Kafka client, producer and consumer, each beside its bare
 *                client and the Java perf tools, interleaved rounds (bench/kafka-table.ts)
 *   rate         achieved vs target rate at 1k, 10k and 50k msg/s (open loop)
 *   consume      convoy's consumer worker per client and concurrency mode next to
 *                kafka-consumer-perf-test (ConsumerPerformance) on the same preloaded topic
 *   scale        the scale run: 10k msg/s, 100k keys, 2 consumers; backlog and drain
 *   request-proxy  what the Kafka request proxy costs a producer while no request fault acts
 *                (publish p50 and client + proxy CPU per 1k msgs, with and without it, interleaved rounds)
 *   store        the entity store's CPU per 1,000 applies, no broker: SQLite beside CONVOY_BENCH_BEFORE,
 *                and PostgreSQL (a server of its own) with its server's CPU (bench/store.ts)
 *   cli-start    `convoy --version` as a whole process, median of 20 (target 0.15 s)
 *   hotkeys      the hot-key and head-of-line arithmetic, on the memory broker (bench/hotkeys.ts);
 *                `hotkeys ceiling|concurrency|hol|defences` runs one part; `hotkeys defences-kafka` the defences on a local Kafka node
 * (kafka, request-proxy, consume, scale and store are not in the default set; consume and scale also measure CONVOY_BENCH_BEFORE=<git rev> side by side; not in the default set, nor is hotkeys)
 *
 * `npm run bench -- checker` (or throughput, rate) runs one part.
 */
import '../bin/node-guard.js'; // a supported Node, or this runs again on one
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCheckerBench, formatCheckerBench } from './checker.ts';
import { producerThroughput, rateAccuracy } from './kafka.ts';
import { consumerThroughput, scaleRun } from './consume.ts';
import { kafkaTable } from './kafka-table.ts';
import { hotKeyBench } from './hotkeys.ts';
import { requestProxyCost } from './request-proxy.ts';
import { cliStart } from './cli-start.ts';
import { storeBench } from './store.ts';

const parts = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const want = (p: string) => (parts.length === 0 && !['kafka', 'consume', 'scale', 'hotkeys', 'request-proxy', 'store'].includes(p)) || parts.includes(p);
const out = (line: string) => process.stdout.write(line + '\n');

const results = mkdtempSync(join(tmpdir(), 'convoy-bench-'));
try {
  if (want('cli-start')) {
    out('== CLI start-up');
    for (const line of cliStart()) out(line);
  }
  if (want('checker')) {
    out('== checker');
    out(formatCheckerBench(await runCheckerBench({})));
  }
  if (want('kafka')) {
    out('== every Kafka client, producer and consumer, beside its bare client and the Java perf tools (one Kafka node)');
    for (const line of await kafkaTable({ resultsDir: results })) out(line);
  }
  if (want('throughput')) {
    out('== producer throughput against one Kafka node (history recorded as in any run)');
    for (const line of await producerThroughput({ resultsDir: results })) out(line);
  }
  if (want('rate')) {
    out('== open-loop rate accuracy (confluent client, one Kafka node)');
    for (const line of await rateAccuracy({ resultsDir: results })) out(line);
  }
  if (want('consume')) {
    out('== consumer throughput against one Kafka node (history and store on, as in any run)');
    for (const line of await consumerThroughput({ resultsDir: results })) out(line);
  }
  if (want('store')) {
    out('== the entity store per message, no broker: SQLite (beside CONVOY_BENCH_BEFORE) and PostgreSQL');
    for (const line of await storeBench(results)) out(line);
  }
  if (want('request-proxy')) {
    out('== the Kafka request proxy while no request fault acts (one Kafka node, Toxiproxy in both arms)');
    for (const line of await requestProxyCost({ resultsDir: results })) out(line);
  }
  if (want('hotkeys')) {
    out('== hot keys and head-of-line blocking, the seeds\' arithmetic (memory broker; defences-kafka: Kafka)');
    await hotKeyBench(parts.filter((p) => p !== 'hotkeys'), out);
  }
  if (want('scale')) {
    out('== scale run: 10k msg/s, 6 partitions, 100k keys (Zipf 0.8), 2 consumers, 0 ms handler, partition mode, confluent');
    for (const line of await scaleRun({ resultsDir: results })) out(line);
  }
} finally {
  rmSync(results, { recursive: true, force: true });
}
process.exit(0);
