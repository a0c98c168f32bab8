// @needs rabbitmq
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { convoy, onlyRunDir, readHistory, processesMentioning, ROOT } from './helpers.ts';

test('convoy run: a RabbitMQ scenario end to end, through Toxiproxy, with separate producer and consumer processes', async () => {
  const results = mkdtempSync(join(tmpdir(), 'convoy-run-'));
  const r = await convoy(['run', 'workloads/rabbitmq-smoke.yaml', '--results', results]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /rabbitmq-smoke: PASS/);
  const runDir = onlyRunDir(results);
  const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as Record<string, any>;

  // The result follows the published schema.
  const schema = JSON.parse(readFileSync(join(ROOT, 'results/schema/result.v1.json'), 'utf8'));
  const validate = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true }).compile(schema);
  assert.ok(validate(result), JSON.stringify(validate.errors));
  assert.equal(result.verdict.status, 'pass');
  assert.equal(result.environment.broker, 'rabbitmq');

  // Two producer processes wrote for one logical producer; two consumers processed.
  const events = readHistory(runDir);
  const sends = events.filter((e) => e.type === 'send');
  const processes = new Set(sends.map((e) => e.process));
  assert.deepEqual([...processes].sort(), ['p-orders-1', 'p-orders-2']);
  assert.equal(sends.length, result.workload.plannedMessages);
  // Each hash lane is a queue with a single active consumer: one consumer process per lane.
  const consumersByLane = new Map<string, Set<unknown>>();
  for (const e of events.filter((e) => e.type === 'process')) {
    const set = consumersByLane.get(String(e.lane)) ?? new Set();
    set.add(e.consumer);
    consumersByLane.set(String(e.lane), set);
  }
  for (const [lane, set] of consumersByLane) assert.equal(set.size, 1, `lane ${lane} had consumers ${[...set].join(', ')}`);
  for (const set of consumersByLane.values()) for (const c of set) assert.match(String(c), /^c[12]$/);
  // Every send was acked and every acked message applied exactly once, in order.
  assert.equal(events.filter((e) => e.type === 'ack' && e.ok === true).length, sends.length);
  assert.equal(result.anomalies.lost.count, 0);
  assert.equal(result.anomalies.duplicate.count, 0);
  // The lanes are the run's own queues, named after the run id.
  const lanes = new Set(events.filter((e) => e.type === 'process').map((e) => String(e.lane)));
  for (const lane of lanes) assert.ok(lane.includes(result.runId), `lane ${lane} is not named after run ${result.runId}`);
  assert.equal(lanes.size, 3);
  // A broker of the run's own has its folder in the run's; a reused one (the test suite's) is named in its log.
  const reused = /reusing /.test(readFileSync(join(runDir, 'run.log'), 'utf8'));
  assert.ok(reused || existsSync(join(runDir, 'brokers')));
  assert.deepEqual(processesMentioning(runDir), []);
});

test('convoy run: a typo in a scenario is unusable input (exit 2) naming the path, and nothing starts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-bad-'));
  const file = join(dir, 'bad.yaml');
  writeFileSync(file, readFileSync(join(ROOT, 'workloads/rabbitmq-smoke.yaml'), 'utf8').replace('keys: { count: 50 }', 'keys: { count: 50, distribution: { kind: zipff } }'));
  const r = await convoy(['run', file, '--results', dir]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /workload\.keys\.distribution\.kind: expected one of uniform, zipf, hotspot, single, round-robin; got "zipff"/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
});
