import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A free TCP port on the loopback interface, for a server that will bind it a few seconds later
 * (a broker node, a Toxiproxy listener). Ports handed out in this process are remembered so two
 * allocations never return the same port before it is bound.
 *
 * Ports are drawn at random from below the kernel's ephemeral range. A port the kernel hands out
 * for `listen(0)` lies inside that range, and so does the source port of every outgoing
 * connection on the machine: on a busy machine one of those took the port before Toxiproxy
 * could bind it (HTTP 500 from its API, a run lost as `unknown`). Below the range only another
 * server asking for that very port can collide, and the random draw makes two convoy processes
 * unlikely to pick the same one.
 */
const handedOut = new Set<number>();

/** [low, high] of the ports to draw from: 20000 up to just below the ephemeral range. */
export function drawRange(ephemeral = ephemeralRange()): [number, number] {
  const high = Math.min(ephemeral[0] - 1, 65535);
  const low = Math.min(20000, high - 1000);
  return low >= 1024 ? [low, high] : [1024, 65535];
}

function ephemeralRange(): [number, number] {
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (lo > 0 && hi >= lo) return [lo, hi];
  } catch {
    /* not Linux: the usual IANA range */
  }
  return [49152, 65535];
}

function tryBind(port: number, host: string): Promise<number | null> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(null));
    srv.listen(port, host, () => {
      const addr = srv.address();
      const p = typeof addr === 'object' && addr ? addr.port : null;
      srv.close(() => resolve(p));
    });
  });
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  const [low, high] = drawRange();
  for (let attempt = 0; attempt < 200; attempt++) {
    const candidate = attempt < 150 ? low + Math.floor(Math.random() * (high - low + 1)) : 0;
    if (handedOut.has(candidate)) continue;
    const port = await tryBind(candidate, host);
    if (port !== null && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('could not find a free port');
}

export async function freePorts(n: number, host = '127.0.0.1'): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < n; i++) ports.push(await freePort(host));
  return ports;
}

/** True when something accepts connections on host:port. */
export async function isListening(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const sock = connect({ port, host });
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}
