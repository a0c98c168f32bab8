/**
 * The order service end to end on the memory broker: real instance, router and load
 * driver processes, autocannon, the shared SQLite store, the analysis. Beside, not instead of,
 * the real-broker test (brokers/kafka/test/gateway.test.ts). No timed assertions: what is asserted
 * holds by construction (one writer per order in key-affine; the history and the store agree).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { convoy, onlyRunDir, readHistory } from '../runner/helpers.ts';

interface GatewayResult {
  verdict: { status: string; reasons: string[] };
  anomalies: Record<string, { count: number }>;
  gateway: {
    duplicateVersions: { count: number; events: number } | null;
    requests: { asked: number; achieved: number | null; ok: number; failed: number };
    http: Record<string, { latency: { count: number; unit: string } }>;
    autocannon: { summary: { requests: { total: number } } | null; limits: string[] };
    store: { orders: number; events: number } | null;
  };
}

async function run(mode: string, expect: string): Promise<{ result: GatewayResult; runDir: string }> {
  const dir = mkdtempSync(join(tmpdir(), `convoy-gateway-${mode}-`));
  const file = join(dir, `${mode}.yaml`);
  writeFileSync(
    file,
    [
      'broker: { kind: memory, mode: partitioned, partitions: 2 }',
      `workload: { keys: { count: 8 }, rate: { kind: fixed, perSecond: 100 }, durationMs: 3s, warmupMs: 500ms, gateway: { instances: 2, mode: ${mode}, connections: 4 } }`,
      'consumers: { processes: 1, strategy: versioned }',
      `expect: ${expect}`,
      'run: { drainTimeoutMs: 20s }',
    ].join('\n') + '\n',
  );
  const results = join(dir, 'results');
  const r = await convoy(['run', file, '--results', results, '--quiet'], { timeoutMs: 180_000 });
  const runDir = onlyRunDir(results);
  const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as GatewayResult;
  // 3 is allowed: a loaded host can keep the driver under its rate (verdict unknown); the
  // assertions below hold whatever the rate reached.
  assert.ok([0, 1, 3].includes(r.code ?? -1), r.stdout + r.stderr);
  return { result, runDir };
}

test('key-affine on the memory broker: every request is one event, published once in commit order; the store, history and HTTP figures agree', async () => {
  const { result, runDir } = await run('key-affine', '{ reorder: 0, duplicate-versions: 0 }');
  const g = result.gateway;
  const planned = 350; // (0.5 s + 3 s) x 100/s
  assert.equal(g.requests.ok, planned, JSON.stringify(g.requests));
  assert.equal(g.requests.failed, 0);
  assert.equal(g.store?.events, planned);
  assert.equal(g.duplicateVersions?.count, 0);
  assert.equal(g.duplicateVersions?.events, planned);
  assert.equal(result.anomalies.reorder!.count, 0);
  // convoy's own latency, where requests arrive: at the router and at the instances, each request once.
  assert.equal(g.http.router?.latency.count, planned);
  assert.equal(g.http.instance?.latency.count, planned);
  assert.equal(g.http.router?.latency.unit, 'us');
  assert.equal(g.autocannon.summary?.requests.total, planned);
  assert.ok(g.autocannon.limits.some((l) => /Math\.ceil\(1 \/ rate\)/.test(l)));
  // Each order's sends are numbered 1..n by commit order, with the version the store gave.
  const sends = readHistory(runDir).filter((e) => e.type === 'send') as { key: string; seq: number; version: number; producer: string }[];
  assert.equal(sends.length, planned);
  const byKey = new Map<string, number[]>();
  for (const s of sends) {
    assert.equal(s.producer, 'gateway');
    assert.equal(s.version, s.seq, 'one writer per order numbers by commit order');
    byKey.set(s.key, [...(byKey.get(s.key) ?? []), s.seq]);
  }
  for (const [key, seqs] of byKey) assert.deepEqual(seqs.sort((a, b) => a - b), seqs.map((_, i) => i + 1), key);
  assert.ok(!result.verdict.reasons.some((x) => /reorder|duplicate-versions/.test(x)), result.verdict.reasons.join('; '));
});

test('direct on the memory broker: duplicate versions in the result are exactly the store\'s', async () => {
  const { result, runDir } = await run('direct', '{ reorder: any, duplicate-versions: any }');
  const db = new Database(join(runDir, 'orders.sqlite'), { readonly: true });
  const stored = (db.prepare('SELECT COALESCE(SUM(n - 1), 0) AS d FROM (SELECT COUNT(*) AS n FROM events GROUP BY key, version)').get() as { d: number }).d;
  const events = (db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;
  db.close();
  assert.equal(result.gateway.duplicateVersions?.count, stored);
  assert.equal(result.gateway.store?.events, events);
  assert.equal(result.gateway.requests.ok, events);
});

test("outbox on the memory broker: each event's stamp is its change's commit time from the store, not the relay's publish time", async () => {
  const { runDir } = await run('outbox', '{ reorder: 0, duplicate-versions: 0 }');
  const db = new Database(join(runDir, 'orders.sqlite'), { readonly: true });
  const committed = new Map((db.prepare('SELECT key, commit_index AS seq, at FROM events').all() as { key: string; seq: number; at: number }[]).map((r) => [`${r.key}#${r.seq}`, r.at]));
  db.close();
  const processed = readHistory(runDir).filter((e) => e.type === 'process') as { key: string; seq: number; stamp?: number }[];
  assert.ok(processed.length > 100, `${processed.length} processed`);
  for (const p of processed) {
    const at = committed.get(`${p.key}#${p.seq}`);
    assert.ok(at !== undefined, `${p.key}#${p.seq} is in the store`);
    assert.equal(p.stamp, Math.floor(at / 1000), `${p.key}#${p.seq}: stamped with its commit millisecond`);
  }
});
