import { createServer } from 'node:net';

/**
 * A free TCP port on the loopback interface, chosen by the kernel. Ports handed out in this
 * process are remembered so two allocations never return the same port before it is bound.
 */
const handedOut = new Set<number>();

export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.unref();
      srv.on('error', reject);
      srv.listen(0, host, () => {
        const addr = srv.address();
        const p = typeof addr === 'object' && addr ? addr.port : 0;
        srv.close(() => resolve(p));
      });
    });
    if (!handedOut.has(port)) {
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
