/**
 * The key-affine router: in front of the instances, it sends every request for one order id to
 * the same instance (a stable hash of the id), so each order has one writer. It times each
 * request as the client sees the service (arrival to response), like an instance does.
 */
import { createServer, request, Agent } from 'node:http';
import { HistoryWriter } from '../history/writer.ts';
import { emptyStats, type FromWorker, type Inbox, type WorkerInit } from '../workers/protocol.ts';
import { loopLagMeter } from '../workers/loop-lag.ts';
import { laneOf } from './store.ts';
import { httpLatency, listen } from './http-latency.ts';

const ORDER = /^\/orders\/([^/]+)\//;

export async function runRouter(init: WorkerInit, inbox: Inbox, send: (m: FromWorker) => void): Promise<void> {
  const targets = init.gateway!.instanceUrls!.map((u) => new URL(u));
  const history = new HistoryWriter(init.historyFile);
  const stats = emptyStats();
  const lag = loopLagMeter();
  const latency = httpLatency();
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const server = createServer((req, res) => {
    latency.watch(req, res);
    const m = ORDER.exec(req.url ?? '');
    const to = targets[m ? laneOf(decodeURIComponent(m[1]!), targets.length) : 0]!;
    stats.sent++;
    const up = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers, agent }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
      stats.acked++;
    });
    up.on('error', (e) => {
      stats.failed++;
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: e.message }));
    });
    req.pipe(up);
  });
  const url = await listen(server);
  const timer = setInterval(() => send({ type: 'stats', stats: { ...stats, loopLagMs: lag() } }), 500);
  let stop!: () => void;
  const stopped = new Promise<void>((r) => (stop = r));
  inbox((msg) => {
    if (msg.type === 'stop') stop();
  });
  send({ type: 'ready', detail: { url } });
  await stopped;
  clearInterval(timer);
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  agent.destroy();
  latency.writeTo(history, init.id, 'router');
  history.close();
  stats.finished = true;
  send({ type: 'stopped', stats });
}
