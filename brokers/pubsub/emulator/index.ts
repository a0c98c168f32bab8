/**
 * convoy's Pub/Sub emulator: the google.pubsub.v1 gRPC API (grpc.ts) on an in-memory model
 * (model/), faithful to ordering keys' redelivery (see brokers/pubsub/README.md), plus a small
 * HTTP control endpoint shaped like pstest-server's: GET /health, GET /version,
 * POST /fail-publish?topic=...[&key=...][&count=1][&code=FAILED_PRECONDITION],
 * GET /stats?subscription=... (backlog, outstanding, delivered, cascaded, dead-lettered).
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, ServerCredentials, status } from '@grpc/grpc-js';
import { ApiError, Broker } from './model/broker.ts';
import { publisherService, subscriberService } from './grpc.ts';
import { pubsubServices } from './protos.ts';

export const EMULATOR_NAME = 'convoy-pubsub-emulator';
/** The revision of its behaviour: results record it. */
export const EMULATOR_VERSION = '0.1.0';

export interface EmulatorOptions {
  /** gRPC port; 0 picks a free one. */
  port?: number;
  host?: string;
  /** Also serve the HTTP control endpoint on this port (0 picks one). Off when undefined. */
  controlPort?: number;
}

export interface PubsubEmulator {
  readonly host: string;
  readonly port: number;
  readonly controlPort: number | undefined;
  /** host:port, what PUBSUB_EMULATOR_HOST or the client's apiEndpoint takes. */
  readonly emulatorHost: string;
  readonly broker: Broker;
  close(): Promise<void>;
}

function controlServer(broker: Broker): HttpServer {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const reply = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' });
      res.end(typeof body === 'string' ? `${body}\n` : JSON.stringify(body));
    };
    try {
      if (req.method === 'GET' && url.pathname === '/health') return reply(200, 'ok');
      if (req.method === 'GET' && url.pathname === '/version') return reply(200, { emulator: EMULATOR_NAME, version: EMULATOR_VERSION, node: process.version });
      if (req.method === 'GET' && url.pathname === '/stats') return reply(200, broker.subscription(url.searchParams.get('subscription') ?? '').state.snapshot());
      if (req.method === 'POST' && url.pathname === '/fail-publish') {
        const topic = url.searchParams.get('topic') ?? '';
        broker.topic(topic);
        const codeName = url.searchParams.get('code') ?? 'FAILED_PRECONDITION';
        const code = (status as unknown as Record<string, number>)[codeName];
        if (code === undefined) return reply(400, `unknown gRPC status ${codeName}`);
        const key = url.searchParams.get('key');
        broker.failNextPublish(topic, { ...(key !== null ? { key } : {}), remaining: Number(url.searchParams.get('count') ?? 1), code });
        return reply(200, 'ok');
      }
      reply(404, 'not found');
    } catch (err) {
      reply(err instanceof ApiError && err.code === status.NOT_FOUND ? 404 : 500, err instanceof Error ? err.message : String(err));
    }
  });
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<PubsubEmulator> {
  const host = options.host ?? '127.0.0.1';
  const broker = new Broker();
  const server = new Server();
  const services = pubsubServices();
  server.addService(services.publisher, publisherService(broker));
  server.addService(services.subscriber, subscriberService(broker));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${options.port ?? 0}`, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  let control: HttpServer | undefined;
  if (options.controlPort !== undefined) {
    const c = controlServer(broker);
    control = c;
    await new Promise<void>((resolve, reject) => {
      c.once('error', reject);
      c.listen(options.controlPort, host, resolve);
    });
  }
  let closing: Promise<void> | undefined;
  return {
    host,
    port,
    controlPort: control ? (control.address() as AddressInfo).port : undefined,
    emulatorHost: `${host}:${port}`,
    broker,
    close: () => {
      closing ??= (async () => {
        broker.close();
        control?.closeAllConnections();
        await Promise.all([
          // Open StreamingPull calls would hold a graceful shutdown forever: cut them after 1 s.
          new Promise<void>((r) => {
            const force = setTimeout(() => {
              server.forceShutdown();
              r();
            }, 1_000);
            server.tryShutdown(() => {
              clearTimeout(force);
              r();
            });
          }),
          control ? new Promise<void>((r) => control.close(() => r())) : undefined,
        ]);
      })();
      return closing;
    },
  };
}
