/**
 * HTTP latency where the request arrives and the response leaves (the instance or the router),
 * in convoy's own HdrHistogram (µs): autocannon's figures are from a closed loop per connection,
 * without intended start times. Each process writes its histogram into its history as a
 * `gateway-http` mark when it stops; the analysis merges them (figures.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { nowMicros } from '../clock.ts';
import type { HistoryWriter } from '../history/writer.ts';
import type { FromWorker, Inbox, WorkerStats } from '../workers/protocol.ts';
import { loopLagMeter } from '../workers/loop-lag.ts';
import { encode, newHistogram, record } from '../metrics/histogram.ts';

import { HTTP_MARK } from './contract.ts';

export interface HttpLatency {
  /** Times the response from the request's arrival to its last byte handed to the OS. */
  watch(req: IncomingMessage, res: ServerResponse): void;
  /** Writes the histogram and the status counts into the history. */
  writeTo(history: HistoryWriter, process: string, role: 'instance' | 'router'): void;
}

export function httpLatency(): HttpLatency {
  const h = newHistogram();
  const byStatus: Record<string, number> = {};
  return {
    watch(_req, res) {
      const arrived = nowMicros();
      res.once('finish', () => {
        record(h, nowMicros() - arrived);
        byStatus[res.statusCode] = (byStatus[res.statusCode] ?? 0) + 1;
      });
    },
    writeTo(history, process, role) {
      history.write({ type: 'mark', at: nowMicros(), name: HTTP_MARK, detail: { process, role, byStatus, histogram: encode(h) } });
    },
  };
}

/** Reads a request's body (small JSON). */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((ok, fail) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => ok(Buffer.concat(parts).toString('utf8')));
    req.on('error', fail);
  });
}

/** Listens on 127.0.0.1, a free port; resolves with the base URL. */
export async function listen(server: import('node:http').Server): Promise<string> {
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((ok, fail) => server.once('error', fail).listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as import('node:net').AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/**
 * The life of an HTTP worker (instance, router): listen, report stats every 500 ms, say ready
 * with the URL, and when told to stop, close the server, run `closing` (flush what is left),
 * write the latency histogram and say stopped.
 */
export async function serveUntilStopped(
  server: import('node:http').Server,
  w: { id: string; role: 'instance' | 'router'; inbox: Inbox; send: (m: FromWorker) => void; stats: WorkerStats; history: HistoryWriter; latency: HttpLatency },
  closing: () => Promise<void>,
): Promise<void> {
  const lag = loopLagMeter();
  const url = await listen(server);
  const timer = setInterval(() => w.send({ type: 'stats', stats: { ...w.stats, loopLagMs: lag() } }), 500);
  await new Promise<void>((stopped) => {
    w.inbox((msg) => {
      if (msg.type === 'stop') stopped();
    });
    w.send({ type: 'ready', detail: { url } });
  });
  clearInterval(timer);
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await closing();
  w.latency.writeTo(w.history, w.id, w.role);
  w.history.close();
  w.stats.finished = true;
  w.send({ type: 'stopped', stats: w.stats });
}
