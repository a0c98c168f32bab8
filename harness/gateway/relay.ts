/**
 * An outbox relay: one process per lane. It reads its lane's unsent rows in id order (commit
 * order), publishes them in that order, waits for the broker's acks and only then marks them
 * sent. A send that failed leaves its row and every later one unsent: the next round sends
 * them again, in order (after resuming the failed keys where the client paused them). A relay killed between the acks and the mark sends the batch again
 * when it restarts: duplicates, never reorders.
 */
import { loadBroker } from '../broker/registry.ts';
import { sleep } from '../clock.ts';
import { HistoryWriter } from '../history/writer.ts';
import { emptyStats, type FromWorker, type Inbox, type WorkerInit } from '../workers/protocol.ts';
import { loopLagMeter } from '../workers/loop-lag.ts';
import { WorkerFaults } from '../faults/worker-hooks.ts';
import { OrderStore } from './order-store.ts';
import { publisher } from './publish.ts';

const BATCH = 200;
const IDLE_MS = 5;

export async function runRelay(init: WorkerInit, inbox: Inbox, send: (m: FromWorker) => void): Promise<void> {
  const lane = init.gateway!.lane!;
  const history = new HistoryWriter(init.historyFile);
  const log = (line: string) => send({ type: 'log', line });
  const stats = emptyStats();
  const lag = loopLagMeter();
  const store = new OrderStore(init.gateway!.storeFile);
  const client = await (await loadBroker(init.brokerKind)).producer(init.endpoint, init.settings, init.names, { id: init.id, log });
  const publish = publisher(init.id, init.scenario, client, history, stats);
  const faults = WorkerFaults.relay({ id: init.id, log, flushHistory: () => history.flush() });
  let stopping = false;
  inbox((m) => {
    if (m.type === 'stop') stopping = true;
    faults.receive(m);
  });
  const timer = setInterval(() => send({ type: 'stats', stats: { ...stats, loopLagMs: lag() } }), 500);
  send({ type: 'ready' });

  // Until told to stop; the runner stops the relays only once the outbox is empty (or given up).
  while (!stopping) {
    const rows = store.unsent(lane, BATCH);
    if (rows.length === 0) {
      await sleep(IDLE_MS);
      continue;
    }
    // The intended time of an outbox event is its commit: publish delay is the relay's lag.
    const sent = await Promise.all(rows.map((r) => publish(r, r.at)));
    const ok = sent.indexOf(false) < 0 ? rows.length : sent.indexOf(false);
    for (const e of faults.effects()) e.afterPublish?.();
    store.markSent(rows.slice(0, ok).map((r) => r.id));
    if (ok < rows.length) {
      // A failed send may have paused its key in the client (Pub/Sub ordering keys): every send
      // above has settled, so resume the key before the next round sends its rows again in order.
      for (const key of new Set(rows.filter((_, i) => !sent[i]).map((r) => r.key))) client.resumeKey?.(key);
      await sleep(100);
    }
  }
  clearInterval(timer);
  faults.endAll();
  await client.close().catch(() => {});
  store.close();
  history.close();
  stats.finished = true;
  send({ type: 'stopped', stats: { ...stats, loopLagMs: 0 } });
}
