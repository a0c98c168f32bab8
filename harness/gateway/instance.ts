/**
 * One instance of the order service: `POST /orders/{id}/events` with `{"event": name}` writes
 * the change into the shared store the way its mode says, answers 202 once it committed, and
 * (unless an outbox relay does) publishes the event right after the commit.
 * Every request's latency goes into its own HdrHistogram (http-latency.ts).
 */
import { createServer } from 'node:http';
import { loadBroker } from '../broker/registry.ts';
import type { ProducerClient } from '../broker/contract.ts';
import { nowMicros } from '../clock.ts';
import { HistoryWriter } from '../history/writer.ts';
import { emptyStats, type FromWorker, type Inbox, type WorkerInit } from '../workers/protocol.ts';
import { gatewayMode } from './registry.ts';
import { OrderStore, laneOf } from './order-store.ts';
import { publisher } from './publish.ts';
import { httpLatency, readBody, serveUntilStopped } from './http-latency.ts';

const PATH = /^\/orders\/([^/]+)\/events$/;

export async function runInstance(init: WorkerInit, inbox: Inbox, send: (m: FromWorker) => void): Promise<void> {
  const g = init.gateway!;
  const mode = gatewayMode(init.scenario.workload.gateway!.mode);
  const history = new HistoryWriter(init.historyFile);
  const log = (line: string) => send({ type: 'log', line });
  const stats = emptyStats();
  const store = new OrderStore(g.storeFile);
  const client: ProducerClient | undefined = mode.relay ? undefined : await (await loadBroker(init.brokerKind)).producer(init.endpoint, init.settings, init.names, { id: init.id, log });
  const publish = client && publisher(init.id, init.scenario, client, history, stats);
  const latency = httpLatency();

  const server = createServer(async (req, res) => {
    latency.watch(req, res);
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const m = req.method === 'POST' ? PATH.exec(req.url ?? '') : null;
    if (!m) return answer(404, { error: 'POST /orders/{id}/events' });
    const arrived = nowMicros();
    try {
      const key = decodeURIComponent(m[1]!);
      const { event } = JSON.parse(await readBody(req)) as { event?: unknown };
      if (typeof event !== 'string') return answer(400, { error: 'expected {"event": "<name>"}' });
      const written = await mode.write(store, { key, event }, laneOf(key, g.lanes));
      // Published right after the commit, in this instance's commit order; the answer does not
      // wait for the broker's ack (the change is committed: 202), so the HTTP latency is the
      // service's own. A send that fails leaves a committed change without its event: the
      // store's truth then differs from what the consumers saw (wrong-state).
      if (written && publish) void publish(written, arrived);
      answer(202, written ? { id: written.id, version: written.version } : { queued: true });
    } catch (err) {
      log(`request failed: ${(err as Error).message}`);
      answer(500, { error: (err as Error).message });
    }
  });
  await serveUntilStopped(server, { id: init.id, role: 'instance', inbox, send, stats, history, latency }, async () => {
    for (const until = Date.now() + 10_000; stats.inFlight > 0 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    await client?.close().catch(() => {});
    store.close();
  });
}
