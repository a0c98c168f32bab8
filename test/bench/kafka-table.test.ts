/**
 * The smoke of `npm run bench -- kafka` (bench/kafka-table.ts) on the suite's Kafka: one short
 * round of the librdkafka client's rows (every client's rows are the same code; all of them, a
 * JVM start or two each, run in the nightly workflow's short bench), so the bench cannot rot.
 * Its figures are not asserted (CI machines are shared); its shape is: a producer and a consumer
 * row for the client, its bare rows, the perf tools with each partitioner named, every row
 * measured, the targets, and the JSON for the benchmark page. And the table's clients are
 * convoy's list of Kafka clients, whatever that holds.
 */
// @needs kafka
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KAFKA_CLIENTS } from '../../brokers/kafka/client-defaults.ts';
import { kafkaForFile } from '../../brokers/kafka/test/helpers.ts';
import { BARE_CLIENTS } from '../../bench/bare/clients.ts';
import { kafkaTable, tableOptions } from '../../bench/kafka-table.ts';

const kafka = kafkaForFile();

test("the table's clients are convoy's list of Kafka clients; CONVOY_BENCH_CLIENTS narrows it", () => {
  assert.deepEqual(tableOptions({}).clients, KAFKA_CLIENTS);
  assert.deepEqual(tableOptions({ CONVOY_BENCH_CLIENTS: 'java,confluent' }).clients, KAFKA_CLIENTS.filter((c) => c === 'java' || c === 'confluent'));
});

test('the Kafka bench table: the client as producer and consumer, beside its bare client and the perf tools, and its JSON', { timeout: 240_000 }, async (t) => {
  const clients = ['confluent'] as const;
  const dir = mkdtempSync(join(tmpdir(), 'convoy-bench-table-'));
  const lines = await kafkaTable({
    resultsDir: dir,
    deployment: kafka.dep,
    options: { rounds: 1, records: 2_000, consumed: 2_000, clients, jsonDir: dir, baselines: false },
  });
  const text = lines.join('\n');
  for (const line of lines) t.diagnostic(line); // the figures, for the log; never asserted
  const measured = lines.filter((l) => /^ {2}(producer|consumer) /.test(l));
  const expected: string[] = ['producer kafka-producer-perf-test (sticky partitioner)', 'producer kafka-producer-perf-test (round-robin partitioner)', 'consumer kafka-consumer-perf-test'];
  for (const client of clients) {
    expected.push(`producer convoy ${client}`, `consumer convoy ${client} (partition mode)`);
    if (BARE_CLIENTS[client]?.producer) expected.push(`producer bare ${client}`);
    if (BARE_CLIENTS[client]?.consumer) expected.push(`consumer bare ${client}`);
  }
  for (const row of expected) {
    const line = measured.find((l) => l.trimStart().startsWith(`${row} `));
    assert.ok(line, `a measured row "${row}" in:\n${text}`);
    assert.doesNotMatch(line, /failed/, line);
    assert.match(line, /[1-9]\d* msg\/s/, `the row measured a rate: ${line}`);
  }
  assert.equal(measured.length, expected.length, text);
  assert.match(text, /targets \(medians of the per-round ratios\):\n {2}consumer, convoy confluent client CPU per 1k msgs \/ bare confluent's: [\d.]+ \(target <= 1\.8/);
  const rate = JSON.parse(readFileSync(join(dir, 'kafka-rate.json'), 'utf8')) as { name: string; unit: string; value: number }[];
  const cost = JSON.parse(readFileSync(join(dir, 'kafka-cost.json'), 'utf8')) as { name: string; unit: string; value: number }[];
  assert.equal(rate.length, expected.length, 'a rate per row');
  for (const p of [...rate, ...cost]) assert.ok(p.name && p.unit && Number.isFinite(p.value), JSON.stringify(p));
  assert.ok(cost.some((p) => p.name === "kafka consumer: convoy confluent (partition mode) client CPU / bare confluent's" && p.unit === 'ratio'));
});
