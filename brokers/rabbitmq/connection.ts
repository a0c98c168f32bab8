/**
 * Opening AMQP connections from an Endpoint (plain JSON, so worker processes can get it).
 */
import { readFileSync } from 'node:fs';
import * as amqp from 'amqplib';
import type { Endpoint } from '../../harness/broker/contract.ts';
import type { RabbitSettings } from './settings.ts';

export interface RabbitEndpoint {
  /** What clients use: through the Toxiproxy `clients` link when convoy started the broker. */
  url: string;
  /** Control-plane URL for admin() (the node's own port, so link faults do not hit admin). */
  adminUrl?: string;
  /**
   * A cluster: every node's client URL and admin URL, the first ones as `url` and `adminUrl`. A
   * connection tries them in turn from the one it prefers, so a client whose node is down
   * connects to another, as a client given the cluster's node list does.
   */
  urls?: string[];
  adminUrls?: string[];
  tls?: RabbitSettings['tls'];
  /** Local runtime: the Erlang node name and its rabbitmqctl, for control the AMQP API lacks (a cluster: its first node; `nodes` has them all). */
  node?: string;
  nodes?: string[];
  rabbitmqctl?: string;
  /** A cluster with proxied peer links: the Erlang host table the CLI tools find its nodes in (ctl.ts). */
  inetrc?: string;
  /** A queue made beforehand (the external runtime's queue.name): convoy declares and deletes nothing, and tells runs apart by the run id in each payload. */
  queue?: string;
  /** Set with `queue`: producers put the run id in every payload, consumers pass over other runs' messages. */
  runTagged?: boolean;
}

export function asEndpoint(e: Endpoint): RabbitEndpoint {
  if (typeof e.url !== 'string') throw new Error('rabbitmq endpoint has no url');
  return e as unknown as RabbitEndpoint;
}

/** The URL with its password hidden, for log lines. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

function socketOptions(tls: RabbitEndpoint['tls'], name: string): amqp.SocketOptions {
  const opts: amqp.SocketOptions = {
    timeout: 10_000,
    noDelay: true,
    clientProperties: { connection_name: name, product: 'convoy' },
  };
  if (tls) {
    if (tls.ca) opts.ca = [readFileSync(tls.ca)];
    if (tls.cert) opts.cert = readFileSync(tls.cert);
    if (tls.key) opts.key = readFileSync(tls.key);
    if (tls.passphrase) opts.passphrase = tls.passphrase;
    if (tls.servername) opts.servername = tls.servername;
    if (tls.rejectUnauthorized !== undefined) opts.rejectUnauthorized = tls.rejectUnauthorized;
  }
  return opts;
}

/**
 * One connection (no recovery: producer and consumer run their own reconnect loops). On a
 * cluster it tries each node in turn, from `prefer` (a client's number spreads clients over the
 * nodes), and fails with the last node's error.
 */
export async function openConnection(
  endpoint: RabbitEndpoint,
  opts: { name: string; heartbeatSeconds: number; admin?: boolean; prefer?: number },
): Promise<amqp.ChannelModel> {
  const all = opts.admin ? (endpoint.adminUrls ?? [endpoint.adminUrl ?? endpoint.url]) : (endpoint.urls ?? [endpoint.url]);
  const start = Math.abs(opts.prefer ?? 0) % all.length;
  let lastError: unknown;
  for (let i = 0; i < all.length; i++) {
    const url = new URL(all[(start + i) % all.length]!);
    url.searchParams.set('heartbeat', String(opts.heartbeatSeconds));
    try {
      const conn = await amqp.connect(url.toString(), socketOptions(endpoint.tls, opts.name));
      // Errors also arrive as 'close'; without a listener an 'error' event would crash the process.
      conn.on('error', () => {});
      return conn;
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

/** A client's preferred node: the number in its id (p-producer-2, c3), or 0. */
export function preferredNode(id: string): number {
  const m = /(\d+)$/.exec(id);
  return m ? Number(m[1]) - 1 : 0;
}

/** Exponential backoff with a little jitter: 100 ms, 200 ms, ... up to maxMs. */
export function backoff(attempt: number, maxMs: number): number {
  const base = Math.min(maxMs, 100 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.2));
}

/**
 * connection.close, but bounded: a broker that does not answer (a channel stuck on a quorum
 * queue without a leader, a link held by a `timeout` toxic) gets its socket destroyed.
 */
export async function closeConnection(conn: amqp.ChannelModel | undefined, timeoutMs = 5_000): Promise<void> {
  if (!conn) return;
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    conn.close().then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((r) => {
      timer = setTimeout(() => r(false), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (!closed) (conn as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}
