/**
 * A consumer's reads of the owner service (service.ts): one HTTP GET per read, on a kept-alive
 * connection, each timed. A read that fails (the owner is down, or slower than the timeout)
 * throws; the caller decides whether to retry.
 */
import { Agent, request } from 'node:http';
import type { VersionedState } from '../workload/entity.ts';
import type { EntityState } from '../workload/entity-state.ts';

export interface OwnerClient {
  /** The owner's state of `key`; null when it has none yet (404). */
  fetch(key: string): Promise<VersionedState | null>;
  close(): void;
}

export function ownerClient(url: string, timeoutMs = 2_000, onRead?: (micros: number, ok: boolean) => void): OwnerClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  return {
    fetch(key) {
      const started = performance.now();
      const done = (ok: boolean) => onRead?.((performance.now() - started) * 1000, ok);
      return new Promise<VersionedState | null>((resolve, reject) => {
        const req = request(`${url}/entities/${encodeURIComponent(key)}`, { agent, timeout: timeoutMs }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => {
            if (res.statusCode === 404) return done(true), resolve(null);
            if (res.statusCode !== 200) return done(false), reject(new Error(`owner answered ${res.statusCode}`));
            const v = JSON.parse(body) as { version: number; state: EntityState };
            done(true);
            resolve({ version: v.version, state: v.state });
          });
        });
        req.on('timeout', () => req.destroy(new Error(`owner read timed out after ${timeoutMs} ms`)));
        req.on('error', (e) => (done(false), reject(e)));
        req.end();
      });
    },
    close: () => agent.destroy(),
  };
}
