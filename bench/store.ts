/**
 * The entity store's cost per message, without a broker: a consumer's applies straight into the
 * store (a run's file store, WAL; 20,000 messages over 1,000 keys), for three strategies, one
 * transaction per message (`alone`) and 1,000 per transaction (`group`, the group commit).
 * SQLite: this tree beside CONVOY_BENCH_BEFORE=<git rev> (exported as `consume` does), rounds
 * interleaved (CONVOY_BENCH_ROUNDS, default 3), the median of the process's CPU per 1,000
 * messages. PostgreSQL (this tree): a server of its own, 8 applies in flight (a consumer's
 * workers), the client's and the server's CPU per 1,000 messages and the rate.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EntitySpec } from '../harness/workload/changes.ts';
import { trees } from './consume.ts';

const N = Number(process.env.CONVOY_BENCH_STORE_MESSAGES ?? 20_000);
const KEYS = 1_000;
const CASES: { strategy: string; entity: EntitySpec }[] = [
  { strategy: 'versioned', entity: { kind: 'wallet', events: 'change', cancelShare: 0 } },
  { strategy: 'versioned', entity: { kind: 'order', events: 'state', cancelShare: 0 } },
  { strategy: 'commutative-dedup', entity: { kind: 'wallet', events: 'change', cancelShare: 0 } },
];
const messages = Array.from({ length: N }, (_, i) => ({ key: `k${i % KEYS}`, seq: Math.floor(i / KEYS) + 1, producer: 'p' }));

interface StoreLike {
  apply(m: (typeof messages)[number]): unknown;
  batch<T>(fn: () => T): T;
  close(): unknown;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One tree's SQLite store: CPU ms per 1,000 messages for one case. */
async function sqliteOnce(dir: string, tmp: string, c: (typeof CASES)[number], grouped: boolean): Promise<number> {
  const { openStore } = (await import(pathToFileURL(join(dir, 'harness/consumer/entity-store.ts')).href)) as { openStore: (...a: unknown[]) => StoreLike };
  const { loadStrategies } = (await import(pathToFileURL(join(dir, 'harness/consumer/strategies/registry.ts')).href)) as { loadStrategies: () => Promise<Map<string, unknown>> };
  const strategy = (await loadStrategies()).get(c.strategy);
  const file = join(mkdtempSync(join(tmp, 'store-')), 'state.sqlite');
  const store = openStore(file, strategy, c.entity);
  const t = cpuMs();
  if (grouped) for (let i = 0; i < N; i += 1000) store.batch(() => messages.slice(i, i + 1000).forEach((m) => store.apply(m)));
  else for (const m of messages) store.apply(m);
  const ms = cpuMs() - t;
  store.close();
  return (ms / N) * 1000;
}

/** CPU ms of the PostgreSQL server and its children (each backend is a process group of its own). */
function serverCpuMs(server: number): number {
  let ticks = 0;
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
      // A backend that exited counts in the server's children's time (cutime, cstime).
      if (Number(p) === server) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
      else if (Number(f[1]) === server) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      /* gone */
    }
  }
  return ticks * 10; // USER_HZ 100
}

export async function storeBench(resultsDir: string): Promise<string[]> {
  return [...(await sqliteBench(resultsDir)), ...(await postgresBench())];
}

/** SQLite, this tree beside CONVOY_BENCH_BEFORE's. */
export async function sqliteBench(resultsDir: string): Promise<string[]> {
  const out: string[] = [];
  const rounds = Number(process.env.CONVOY_BENCH_ROUNDS ?? 3);
  const ts = trees(resultsDir);
  out.push(`SQLite, CPU ms per 1,000 messages (median of ${rounds}; ${N} messages, ${KEYS} keys, a WAL file)`);
  out.push(['case', ...ts.map((t) => t.label), ts.length > 1 ? 'after/before' : ''].join(' | '));
  for (const c of CASES) {
    for (const grouped of [false, true]) {
      const per = ts.map(() => [] as number[]);
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? ts.map((_, i) => i) : ts.map((_, i) => i).reverse();
        for (const i of order) per[i]!.push(await sqliteOnce(ts[i]!.dir, resultsDir, c, grouped));
      }
      const meds = per.map(median);
      out.push([`${c.strategy} ${c.entity.events} ${grouped ? 'group' : 'alone'}`, ...meds.map((m) => m.toFixed(1)), meds.length > 1 ? (meds.at(-1)! / meds[0]!).toFixed(2) : ''].join(' | '));
    }
  }
  return out;
}

async function postgresBench(): Promise<string[]> {
  const { startPostgres } = await import('../harness/runtime/postgres.ts');
  const { EntityStore } = await import('../harness/consumer/entity-store.ts');
  const { loadStrategies } = await import('../harness/consumer/strategies/registry.ts');
  const strategies = await loadStrategies();
  const server = await startPostgres();
  const pg = (await import('pg')).default;
  const out = [`PostgreSQL (this tree; 8 applies in flight; one transaction per message), ${N} messages`, 'case | client CPU ms/1k | server CPU ms/1k | msg/s'];
  try {
    for (const c of CASES) {
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      await admin.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
      await admin.end();
      const store = await EntityStore.at({ kind: 'postgres', url: server.url }, strategies.get(c.strategy)!, c.entity);
      const t = cpuMs();
      const s = serverCpuMs(server.pid!);
      const wall = performance.now();
      let next = 0;
      await Promise.all(Array.from({ length: 8 }, async () => {
        // Each worker takes the next message; one key's messages stay in order across workers only by chance, as in key mode without a key lock: versions may be rejected as gaps, which costs the same.
        while (next < N) await store.apply(messages[next++]!);
      }));
      const secs = (performance.now() - wall) / 1000;
      const client = ((cpuMs() - t) / N) * 1000;
      await store.close(); // the backends' CPU counts once they exited: read after
      await new Promise((r) => setTimeout(r, 200));
      const srvAll = ((serverCpuMs(server.pid!) - s) / N) * 1000;
      out.push(`${c.strategy} ${c.entity.events} alone | ${client.toFixed(1)} | ${srvAll.toFixed(1)} | ${Math.round(N / secs)}`);
    }
  } finally {
    await server.stop();
  }
  return out;
}
