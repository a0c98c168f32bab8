/**
 * The consumer worker (harness/roles/consumer/run.ts) against one real Kafka node with the
 * librdkafka client: a plain message (decoded, 0 ms handler, no poison policy, grouped apply)
 * takes a path without an async frame of its own (it saves about a kilobyte per message); every other one the general path.
 * Both must record the same history, line for line, times aside.
 */
// @needs kafka
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBroker } from '../../../harness/broker/registry.ts';
import { openStrategyStore } from '../../../harness/consumer/strategies/open.ts';
import type { Scenario } from '../../../harness/spec/types.ts';
import { WorkerHandle } from '../../../harness/workers/handle.ts';
import type { WorkerInit } from '../../../harness/workers/protocol.ts';
import { encodeMessage } from '../../../harness/workload/codec.ts';
import { Run, kafkaForFile, runNames, settings, sleep, waitFor } from './helpers.ts';

const kafka = kafkaForFile();

const KEYS = 6;
const PER_KEY = 40;
/** Every third key sends each version twice. */
const TOTAL = KEYS * PER_KEY + (KEYS / 3) * PER_KEY;

function scenario(poison: boolean): Scenario {
  return {
    name: 'worker-paths', description: 'test', seed: 1,
    broker: { kind: 'kafka', client: 'confluent', topic: { partitions: 3 } },
    workload: {
      keys: { count: KEYS, distribution: { kind: 'uniform' }, prefix: 'k' },
      entity: { kind: 'counter', events: 'state', cancelShare: 0 }, rate: { kind: 'unlimited' }, size: { kind: 'fixed', bytes: 128 },
      messages: KEYS * PER_KEY, warmupMs: 0, maxInFlight: 100,
      producers: [{ name: 'p', processes: 1, sharedKeys: false }],
    },
    consumers: {
      processes: 1, handler: { kind: 'constant', ms: 0 }, concurrency: { mode: 'partition', workers: 1 }, strategy: 'versioned',
      // A poison policy (that poisons nothing) sends every message down the general path.
      ...(poison ? { poison: { policy: 'dead-letter', share: 0, maxAttempts: 1, backoffMs: 0 } } : {}),
    },
    faults: [],
    expect: {},
    run: { drainTimeoutMs: 10_000, giveUpDelayMs: 1_000, maxDurationMs: 60_000, settleMs: 500 },
  } as unknown as Scenario;
}

/** A consumer worker reads the whole topic from the start with a fresh group; its history's process events. */
async function consume(run: Run, poison: boolean, dir: string): Promise<Record<string, unknown>[]> {
  const sc = scenario(poison);
  const init: WorkerInit = {
    role: 'consumer', id: 'c1', brokerKind: 'kafka', endpoint: kafka.dep.endpoint,
    settings: (await loadBroker('kafka')).resolveSettings(sc.broker), names: run.names, scenario: sc,
    historyFile: join(dir, `c1-${poison}.jsonl`), storeFile: join(dir, `state-${poison}.sqlite`),
  };
  (await openStrategyStore(init.storeFile, sc)).close();
  const w = new WorkerHandle(init, join(dir, `c1-${poison}.log`), () => {});
  try {
    await w.waitFor('ready', 60_000, 'consumer start');
    await waitFor(() => w.stats.applied >= TOTAL || w.exited, 60_000, 'every message applied');
    await sleep(500);
  } finally {
    await w.stop(10_000);
    await run.admin.client.deleteGroups([`${run.names.prefix}-group`]).catch(() => {});
  }
  return readFileSync(init.historyFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => e.type === 'process');
}

/** An event without its times, and the order of its keys (JSON.stringify writes them in that order). */
const shape = (e: Record<string, unknown>) => {
  const { received, start, end, intended, ...rest } = e;
  const times = [received, start, end, intended].every((t) => typeof t === 'number');
  return { ...rest, keys: Object.keys(e).join(','), times };
};
const byPosition = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a.lane).localeCompare(String(b.lane)) || Number(a.offset) - Number(b.offset);

test('confluent: a consumer worker records the same history through its plain-message path as through the general one', async () => {
  const s = settings({ client: 'confluent', topic: { partitions: 3 } });
  const run = await new Run(kafka.dep, s, runNames('worker-paths')).init();
  const dir = mkdtempSync(join(tmpdir(), 'convoy-worker-paths-'));
  try {
    const p = await run.producer();
    for (let seq = 1; seq <= PER_KEY; seq++) {
      for (let k = 0; k < KEYS; k++) {
        const key = `k${k}`;
        // Every third key sends each version twice: the second is skipped (effect `skipped`).
        await p.send({ key, payload: encodeMessage({ producer: 'p', key, seq, entity: 'counter', intendedUs: 1, poison: false }, 128) });
        if (k % 3 === 0) await p.send({ key, payload: encodeMessage({ producer: 'p', key, seq, entity: 'counter', intendedUs: 1, poison: false }, 128) });
      }
    }
    const plain = (await consume(run, false, dir)).sort(byPosition);
    const general = (await consume(run, true, dir)).sort(byPosition);
    assert.equal(plain.length, TOTAL, 'one process event per message');
    assert.equal(general.length, TOTAL);
    assert.ok(plain.some((e) => e.effect === 'skipped') && plain.some((e) => e.effect === 'applied'), 'both effects occur');
    assert.deepEqual(plain.map(shape), general.map(shape));
    for (const e of plain) assert.ok((e.end as number) >= (e.start as number) && (e.start as number) >= (e.received as number), 'received <= start <= end');
  } finally {
    await run.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
