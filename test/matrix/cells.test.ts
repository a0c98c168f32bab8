import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../harness/errors.ts';
import { buildCells } from '../../harness/matrix/cells.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { checkExpectationScopes } from '../../harness/matrix/expect.ts';
import { readMatrixFile } from '../../harness/matrix/file.ts';
import { makePlan } from '../../harness/matrix/plan.ts';
import { KAFKA_CLIENTS } from '../../brokers/kafka/client-defaults.ts';

const BASE = `broker: { kind: memory, mode: partitioned, partitions: 2 }
workload:
  keys: { count: 5 }
  rate: { kind: fixed, perSecond: 100 }
  durationMs: 1s
consumers: { processes: 1, handler: { kind: constant, ms: 1 }, concurrency: { mode: partition, workers: 4 } }
expect: { reorder: any, overlap: any }
`;

function matrixFile(body: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-matrix-'));
  writeFileSync(join(dir, 'base.yaml'), BASE);
  writeFileSync(join(dir, 'm.yaml'), `name: m\nscenario: base.yaml\n${body}`);
  return join(dir, 'm.yaml');
}

async function problems(body: string): Promise<string[]> {
  try {
    const m = readMatrixFile(matrixFile(body));
    const { cells } = await buildCells(m, { catalogue: await scenarioCatalogue() });
    checkExpectationScopes(m.file, m.expect, cells);
    return [];
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    return err.detail.length ? err.detail : [err.message];
  }
}

test('cells: every combination less the excluded ones, values, linked axes and overrides set in the scenario', async () => {
  const m = readMatrixFile(matrixFile(`vary:
  consumers.concurrency.mode: [partition, key, unordered]
linked:
  size:
    small: { broker.partitions: 2, workload.keys.count: 5 }
    large: { broker.partitions: 6, workload.keys.count: 50 }
exclude:
  - { consumers.concurrency.mode: key, size: large }
overrides:
  - { when: { consumers.concurrency.mode: unordered }, set: { consumers.concurrency.workers: 8 } }
repeats: 3
`));
  const { cells } = await buildCells(m, { catalogue: await scenarioCatalogue() });
  assert.deepEqual(cells.map((c) => c.label), ['mode=partition, size=small', 'mode=partition, size=large', 'mode=key, size=small', 'mode=unordered, size=small', 'mode=unordered, size=large']);
  const large = cells.find((c) => c.id === 'unordered.large')!;
  assert.equal(large.scenario.consumers.concurrency.mode, 'unordered');
  assert.equal((large.scenario.broker as unknown as { partitions: number }).partitions, 6);
  assert.equal(large.scenario.workload.keys.count, 50);
  assert.equal(large.scenario.consumers.concurrency.workers, 8);
  assert.equal(cells.find((c) => c.id === 'partition.large')!.scenario.consumers.concurrency.workers, 4);
  assert.equal(large.scenario.name, 'm.unordered.large');
});

test('bad input names the cell that would have had it: a path not in the schema, a value the schema refuses', async () => {
  const p = await problems(`vary:
  consumers.concurrency.mode: [partition, sideways]
  broker.partitionz: [2]
`);
  // Each said at the matrix file's line that gave the value (the axis's value), with the cells that have it.
  assert.ok(p.some((l) => /^\S+m\.yaml:4:43: cell mode=sideways, partitionz=2: consumers\.concurrency\.mode: expected one of partition, batch, conflate, key, unordered; got "sideways"$/.test(l)), p.join('\n'));
  assert.ok(p.some((l) => /^\S+m\.yaml:5:23: every cell: broker\.partitionz: unknown property/.test(l)), p.join('\n'));
  assert.equal(p.length, 2, p.join('\n'));
});

test('bad input in the matrix file itself: unknown axis in exclude, a value not on the axis, a share, an expectation matching no cell', async () => {
  const located = await problems(`vary: { consumers.concurrency.mode: [partition, key] }
exclude: [{ broker.client: kafkajs }, { consumers.concurrency.mode: unordered }]
expect: [{ where: { consumers.concurrency.mode: key }, anomaly: reorder, share: "most" }, { anomaly: reorderz, share: 0 }]
repeats: 0
`);
  // Each at its file:line:col in the matrix file.
  assert.ok(located.some((l) => /m\.yaml:4:13: exclude\[0\]\.broker\.client: not an axis/.test(l)), located.join('\n'));
  assert.ok(located.some((l) => /m\.yaml:6:1: repeats: /.test(l)), located.join('\n'));
  const p = located.map((l) => l.replace(/^\S+m\.yaml:\d+:\d+: /, ''));
  assert.deepEqual(p.sort(), [
    'exclude[0].broker.client: not an axis of this matrix (axes: consumers.concurrency.mode)',
    'exclude[1].consumers.concurrency.mode: "unordered" is not one of the axis\'s values ("partition", "key")',
    `expect[0].share: expected a share of runs such as ">=0.9", "0", "<=10%", got "most"`,
    `expect[1].anomaly: expected one of ${p.find((l) => l.startsWith('expect[1]'))!.replace(/^expect\[1\]\.anomaly: expected one of (.*); got "reorderz"$/, '$1')}; got "reorderz"`,
    'repeats: expected an integer >= 1, got 0',
  ].sort());
  assert.deepEqual(await problems(`vary: { consumers.concurrency.mode: [partition, key] }
exclude: [{ consumers.concurrency.mode: key }]
expect: [{ where: { consumers.concurrency.mode: key }, anomaly: reorder, share: 0 }]
`), ['expect[0].where: matches no cell of the matrix (after exclude)']);
});

test('plan: repeat by repeat, every cell once per round in a seeded order; the same seed gives the same plan', async () => {
  const m = readMatrixFile(matrixFile(`vary:
  consumers.concurrency.mode: [partition, key, unordered]
  workload.keys.count: [5, 6, 7]
repeats: 4
seed: 9
`));
  const { cells } = await buildCells(m, { catalogue: await scenarioCatalogue() });
  const a = makePlan(m, cells);
  const b = makePlan(m, cells);
  assert.equal(a.runs.length, 36);
  assert.deepEqual(a.runs, b.runs);
  for (let r = 0; r < 4; r++) {
    const round = a.runs.slice(r * 9, r * 9 + 9);
    assert.deepEqual(round.map((x) => x.cell).sort(), cells.map((c) => c.id).sort());
    assert.ok(round.every((x) => x.repeat === r && x.seed === round[0].seed), 'one workload seed per repeat, shared by every cell');
  }
  const orders = new Set([0, 1, 2, 3].map((r) => a.runs.slice(r * 9, r * 9 + 9).map((x) => x.cell).join(' ')));
  assert.ok(orders.size > 1, 'rounds are shuffled, not cell after cell');
  const other = makePlan({ ...m, seed: 10 }, cells);
  assert.notDeepEqual(other.runs.map((x) => x.cell), a.runs.map((x) => x.cell));
});

test('a per-cell override fixes a setting one client refuses; without it the refused cells are named', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-matrix-kafka-'));
  const base = `broker: { kind: kafka }
workload: { rate: { kind: fixed, perSecond: 100 }, durationMs: 2s }
`;
  writeFileSync(join(dir, 'base.yaml'), base);
  const body = (withOverride: boolean) => `name: k
scenario: base.yaml
vary: { broker.client: [kafkajs, confluent] }
linked:
  producer:
    idempotent: { broker.producer.idempotent: true, broker.producer.maxInFlight: 5 }
    plain: { broker.producer.idempotent: false }
${withOverride ? 'overrides: [{ when: { broker.client: kafkajs, producer: idempotent }, set: { broker.producer.maxInFlight: 1 } }]\n' : ''}`;
  writeFileSync(join(dir, 'bad.yaml'), body(false));
  writeFileSync(join(dir, 'good.yaml'), body(true));
  await assert.rejects(buildCells(readMatrixFile(join(dir, 'bad.yaml')), { catalogue: await scenarioCatalogue() }), (err: InputError) => {
    assert.equal(err.detail.length, 1, err.detail.join('\n'));
    assert.match(err.detail[0], /bad\.yaml:6:19: cell client=kafkajs, producer=idempotent: broker\.producer\.idempotent with kafkajs: .*set maxInFlight 1/);
    return true;
  });
  const { cells } = await buildCells(readMatrixFile(join(dir, 'good.yaml')), { catalogue: await scenarioCatalogue() });
  const producer = (id: string) => (cells.find((c) => c.id === id)!.scenario.broker as unknown as { producer: { maxInFlight: number; idempotent: boolean } }).producer;
  assert.deepEqual([producer('kafkajs.idempotent').maxInFlight, producer('confluent.idempotent').maxInFlight], [1, 5]);
  assert.equal(producer('kafkajs.plain').idempotent, false);
});

test('the worked examples in workloads/matrix/ check out; the acceptance one is Kafka client x concurrency mode, 5 repeats', async () => {
  const dir = new URL('../../workloads/matrix/', import.meta.url).pathname;
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  assert.ok(files.length >= 2);
  for (const f of files) {
    const m = readMatrixFile(join(dir, f));
    const { cells } = await buildCells(m, { catalogue: await scenarioCatalogue() });
    checkExpectationScopes(m.file, m.expect, cells);
    // A matrix that compares the Kafka clients compares every one of them (the list is brokers/kafka's).
    const clients = m.axes.find((a) => a.name === 'broker.client');
    if (clients) assert.deepEqual(clients.values, [...KAFKA_CLIENTS], `${f}: broker.client lists every Kafka client`);
  }
  const m = readMatrixFile(join(dir, 'kafka-client-x-concurrency.yaml'));
  assert.deepEqual(m.axes.map((a) => [a.name, a.values]), [['broker.client', [...KAFKA_CLIENTS]], ['consumers.concurrency.mode', ['partition', 'key', 'unordered']]]);
  assert.equal(m.repeats, 5);
  const { cells } = await buildCells(m, { catalogue: await scenarioCatalogue() });
  assert.equal(cells.length, KAFKA_CLIENTS.length * 3);
  // A handler time spread, so that the unordered pool reorders.
  assert.ok(cells.every((c) => c.scenario.broker.kind === 'kafka' && c.scenario.consumers.handler.kind === 'exponential'));
});

test('a mistake is said once, where it was made, with the cells that have it: the base file, an override', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-matrix-once-'));
  // Two mistakes between fields of the base (checks across fields, after the schema), one in an override.
  writeFileSync(join(dir, 'base.yaml'), BASE.replace('keys: { count: 5 }', 'keys: { count: 5, distribution: { kind: hotspot, hotKeys: 7, share: 0.5 } }\n  size: { kind: uniform, min: 500, max: 100 }'));
  writeFileSync(join(dir, 'm.yaml'), `name: m
scenario: base.yaml
vary:
  consumers.concurrency.mode: [partition, unordered, key]
  consumers.concurrency.workers: [2, 4]
overrides:
  - { when: { consumers.concurrency.mode: key }, set: { consumers.handler: { kind: uniform, minMs: 5, maxMs: 1 } } }
`);
  const err = await buildCells(readMatrixFile(join(dir, 'm.yaml')), { catalogue: await scenarioCatalogue() }).then(() => undefined, (e: InputError) => e);
  assert.ok(err instanceof InputError);
  const base = join(dir, 'base.yaml');
  assert.deepEqual(err.detail, [
    `${base}:3:52: every cell: workload.keys.distribution.hotKeys: expected integer < workload.keys.count (5), got 7`,
    `${base}:4:36: every cell: workload.size.max: expected integer ≥ workload.size.min (500), got 100`,
    `${join(dir, 'm.yaml')}:7:57: cells mode=key, workers=2; mode=key, workers=4: consumers.handler.maxMs: expected a duration ≥ minMs (5), got 1`,
  ]);
  assert.match(err.message, /3 problems in the matrix's cells/);
});
