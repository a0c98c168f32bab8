/**
 * The key-affine router: in front of the instances, it sends every request for one order id to
 * the same instance (a stable hash of the id), so each order has one writer. It times each
 * request as the client sees the service (arrival to response), like an instance does.
 */
import { createServer, request, Agent } from 'node:http';
import { HistoryWriter } from '../history/writer.ts';
import { emptyStats, type FromWorker, type Inbox, type WorkerInit } from '../workers/protocol.ts';
import { laneOf } from './order-store.ts';
import { httpLatency, serveUntilStopped } from './http-latency.ts';

const ORDER = /^\/orders\/([^/]+)\//;

export async function runRouter(init: WorkerInit, inbox: Inbox, send: (m: FromWorker) => void): Promise<void> {
  const targets = init.gateway!.instanceUrls!.map((u) => new URL(u));
  const history = new HistoryWriter(init.historyFile);
  const stats = emptyStats();
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
  await serveUntilStopped(server, { id: init.id, role: 'router', inbox, send, stats, history, latency }, async () => agent.destroy());
}
