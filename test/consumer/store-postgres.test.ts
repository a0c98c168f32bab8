// @needs postgres
/**
 * The entity store on PostgreSQL (a server this file starts, about a second): every strategy's
 * textbook cases (strategy-cases.ts) as on SQLite; two stores (two pools, as two consumer
 * processes) racing on the same keys keep every apply, because a transaction locks its key;
 * and a run with `consumers.store: postgres` ends with the same verdict and final state as the
 * same run on SQLite.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { EntityStore, compareWithTruth, openStore } from '../../harness/consumer/entity-store.ts';
import { emptyCounts, type Apply } from '../../harness/consumer/replay.ts';
import { copyToSqlite } from '../../harness/consumer/store/postgres.ts';
import { loadStrategies } from '../../harness/consumer/strategies/registry.ts';
import type { ConsumerStrategy, StrategyOptions } from '../../harness/consumer/strategies/contract.ts';
import { startPostgres, type PostgresServer } from '../../harness/runtime/postgres.ts';
import type { EntitySpec } from '../../harness/workload/changes.ts';
import { truth } from '../../harness/workload/entity.ts';
import { convoy } from '../runner/helpers.ts';
import { textbookCases } from './strategy-cases.ts';

const strategies = await loadStrategies();
let server: PostgresServer;
before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
});

/** Drops every table: each case starts from an empty store. */
async function emptyDatabase(): Promise<void> {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  await c.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  await c.end();
}

/** The PostgreSQL store's final states and figures, read from its copy in an in-memory SQLite database. */
async function readBack(strategy: ConsumerStrategy, entity: EntitySpec, options: StrategyOptions) {
  const db = new Database(':memory:');
  await copyToSqlite(server.url, db);
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-pgcopy-')), 'state.sqlite');
  await db.backup(file);
  db.close();
  const copy = openStore(file, strategy, entity, options);
  try {
    return { final: copy.finalStates(), figures: copy.figures() };
  } finally {
    copy.close();
    rmSync(join(file, '..'), { recursive: true, force: true });
  }
}

textbookCases('postgres', async (strategy, entity, options, applies) => {
  await emptyDatabase();
  const store = await EntityStore.at({ kind: 'postgres', url: server.url }, strategy, entity, options);
  const effects = emptyCounts();
  try {
    for (const a of [...applies].sort((x, y) => x.end - y.end)) {
      const e = await store.apply(a);
      if (e === 'held') throw new Error('held');
      effects[e]++;
    }
  } finally {
    await store.close();
  }
  return { ...(await readBack(strategy, entity, options)), effects };
});

const WALLETS: EntitySpec = { kind: 'wallet', events: 'change', cancelShare: 0 };

test('postgres: two stores racing on the same keys lose no delta (commutative) and apply each version once (versioned)', async () => {
  const keys = Array.from({ length: 8 }, (_, i) => `w${i}`);
  const seqs = Array.from({ length: 25 }, (_, i) => i + 1);
  for (const name of ['commutative', 'versioned']) {
    await emptyDatabase();
    const strategy = strategies.get(name)!;
    const a = await EntityStore.at({ kind: 'postgres', url: server.url }, strategy, WALLETS);
    const b = await EntityStore.at({ kind: 'postgres', url: server.url }, strategy, WALLETS);
    const effects = emptyCounts();
    try {
      // commutative: each delta once, split between the stores, all in flight at once. versioned:
      // both stores apply every version in order (a redelivery to a competing consumer).
      const streams =
        name === 'commutative'
          ? [a, b].map((s, i) => keys.flatMap((key) => seqs.filter((q) => q % 2 === i).map((seq) => s.apply({ key, seq, producer: 'p' }))))
          : [a, b].map((s) => keys.map(async (key) => { for (const seq of seqs) effects[(await s.apply({ key, seq, producer: 'p' })) as 'applied']++; }));
      for (const e of await Promise.all(streams.flat())) if (typeof e === 'string') effects[e as 'applied']++;
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    const { final } = await readBack(strategy, WALLETS, { kind: name });
    const t = truth(WALLETS, keys.flatMap((key) => seqs.map((seq) => ({ key, seq }))));
    assert.equal(compareWithTruth(final, t, [], 10, strategy.scoresVersion).wrong, 0, name);
    if (name === 'versioned') assert.deepEqual(effects, { applied: keys.length * seqs.length, skipped: keys.length * seqs.length, rejected: 0 }, 'each version applied by one store, skipped by the other');
    else assert.equal(effects.applied, keys.length * seqs.length);
  }
});

test('a run with consumers.store: postgres ends with the verdict and final state of the same run on SQLite', async () => {
  const results = mkdtempSync(join(tmpdir(), 'convoy-pgrun-'));
  const outcome: Record<string, { verdict: unknown; wrong: number; keys: number; applied: number }> = {};
  for (const store of ['sqlite', 'postgres']) {
    const scenario = join(results, `${store}.yaml`);
    writeFileSync(scenario, [
      `name: store-${store}`,
      'seed: 7',
      'broker: { kind: memory, mode: partitioned, partitions: 4 }',
      'workload: { keys: { count: 20 }, entity: { kind: wallet, events: change }, rate: { kind: fixed, perSecond: 200 }, durationMs: 1s, warmupMs: 200ms }',
      `consumers: { processes: 2, strategy: versioned, store: ${store} }`,
      'expect: { wrong-state: 0 }',
    ].join('\n'));
    const r = await convoy(['run', scenario, '--results', join(results, store), '--quiet'], { timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const runDir = join(results, store, readdirSync(join(results, store))[0]!);
    const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as { verdict: { status: string }; workload: { finalState: Record<string, { mode: string; keys: number; wrong: number; effects: { applied: number } }> } };
    const v = result.workload.finalState.versioned;
    assert.equal(v.mode, 'live');
    outcome[store] = { verdict: result.verdict, wrong: v.wrong, keys: v.keys, applied: v.effects.applied };
  }
  assert.deepEqual(outcome.postgres.verdict, { status: 'pass', reasons: [] }, JSON.stringify(outcome));
  assert.deepEqual(outcome.postgres, outcome.sqlite);
  rmSync(results, { recursive: true, force: true });
});
