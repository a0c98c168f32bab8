/**
 * The runner's side of an order-service run: starts the instances (i1..iN), the router when
 * the mode has one, the outbox relays (relay-1..relay-L) and the load driver, each its own
 * process (WorkerHandle: own process group, reaped with the harness). The instances and
 * relays are the run's publishers; the driver decides when the sending is over.
 */
import { join } from 'node:path';
import type { BrokerHost } from '../broker/in-process.ts';
import { sleep } from '../clock.ts';
import type { Scenario } from '../spec/types.ts';
import { WorkerHandle } from '../workers/handle.ts';
import type { GatewayInit, WorkerInit } from '../workers/protocol.ts';
import { gatewayMode } from './registry.ts';
import { OrderStore } from './order-store.ts';

export interface GatewayRun {
  /** Instances and relays: what publishes (their stats are the run's producer stats). */
  publishers(): WorkerHandle[];
  /** The load driver: finished when autocannon is done. */
  driver: WorkerHandle;
  /** Every process of the service, for the watches and the final stop. */
  all(): WorkerHandle[];
  relays(): WorkerHandle[];
  restartRelay(id: string): Promise<void>;
  /** After the driver finished: until nothing is left to publish (in flight, or in the outbox), bounded. */
  settle(signal: AbortSignal, boundMs?: number): Promise<string | null>;
  storeFile: string;
}

type MakeInit = (role: WorkerInit['role'], id: string, extra: Partial<WorkerInit>) => WorkerInit;

export async function startGateway(
  scenario: Scenario,
  opts: { runDir: string; histDir: string; lanes: number; makeInit: MakeInit; log: (line: string) => void; host?: BrokerHost },
): Promise<GatewayRun> {
  const g = scenario.workload.gateway!;
  const mode = gatewayMode(g.mode);
  const storeFile = join(opts.runDir, 'orders.sqlite');
  new OrderStore(storeFile).close(); // created once, before its writers start
  const base: GatewayInit = { storeFile, lanes: mode.relay ? opts.lanes : 1 };
  const generations = new Map<string, number>();
  const start = (role: WorkerInit['role'], id: string, gateway: GatewayInit): WorkerHandle => {
    const gen = (generations.get(id) ?? 0) + 1;
    generations.set(id, gen);
    const file = gen === 1 ? id : `${id}.${gen}`;
    return new WorkerHandle(opts.makeInit(role, id, { historyFile: join(opts.histDir, `${file}.jsonl`), gateway }), join(opts.runDir, `${file}.log`), opts.log, opts.host);
  };
  const ready = async (ws: WorkerHandle[], what: string) => Promise.all(ws.map((w) => w.waitFor('ready', 60_000, what)));

  const instances = Array.from({ length: g.instances }, (_, i) => start('instance', `i${i + 1}`, base));
  const instanceUrls = (await ready(instances, 'order-service start-up')).map((m) => String(m.detail?.url));
  const relays = mode.relay ? Array.from({ length: base.lanes }, (_, lane) => start('relay', `relay-${lane + 1}`, { ...base, lane })) : [];
  await ready(relays, 'outbox relay start-up');
  const router = mode.router ? start('router', 'router', { ...base, instanceUrls }) : undefined;
  const targetUrls = router ? [String((await router.waitFor('ready', 60_000, 'router start-up')).detail?.url)] : instanceUrls;
  const driver = start('load', 'load', { ...base, targetUrls });
  await driver.waitFor('ready', 60_000, 'load driver start-up');
  const retired: WorkerHandle[] = [];

  const publishers = () => [...(mode.relay ? [] : instances), ...relays, ...retired];
  return {
    storeFile,
    driver,
    publishers,
    relays: () => relays,
    all: () => [...instances, ...relays, ...(router ? [router] : []), driver],
    async restartRelay(id) {
      const i = relays.findIndex((r) => r.id === id);
      if (i < 0) throw new Error(`no relay named "${id}"`);
      const old = relays[i]!;
      const fresh = start('relay', id, old.init.gateway!);
      retired.push(old);
      relays[i] = fresh;
      await fresh.waitFor('ready', 60_000, 'relay restart');
    },
    async settle(signal, boundMs = 30_000) {
      const until = Date.now() + boundMs;
      const store = new OrderStore(storeFile);
      try {
        while (!signal.aborted && Date.now() < until) {
          const inFlight = publishers().reduce((n, w) => n + (w.exited ? 0 : w.stats.inFlight), 0);
          const backlog = mode.relay ? store.backlog() : 0;
          if (inFlight === 0 && backlog === 0) return null;
          await sleep(200, signal);
        }
        return `the order service still had events to publish ${Math.round(boundMs / 1000)} s after the load ended`;
      } finally {
        store.close();
      }
    },
  };
}
