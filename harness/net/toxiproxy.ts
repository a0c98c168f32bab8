import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Toxiproxy, type Proxy } from 'toxiproxy-node-client';
import { cacheDir } from '../runtime/cache.ts';
import { GO_PROXY_HINT, run } from '../runtime/tools.ts';
import { GO, requireTool, type Need } from '../runtime/requirements.ts';
import { LocalProcess } from '../runtime/process.ts';
import { freePort } from '../runtime/ports.ts';
import { InfraError } from '../errors.ts';

export const TOXIPROXY_VERSION = '2.12.0';

/** A broker whose client connections go through a private Toxiproxy needs Go to build it. */
export const TOXIPROXY: Need = { requirement: GO, purpose: 'to build Toxiproxy (client connections go through it)' };

/** Where the built Toxiproxy server lives in the shared cache. */
export function toxiproxyBinaryPath(): string {
  return join(cacheDir('toxiproxy', TOXIPROXY_VERSION), 'server');
}

/** Builds the Toxiproxy server with `go install` into the shared cache on first use. */
export function ensureToxiproxyBinary(log: (l: string) => void = () => {}): string {
  const bin = toxiproxyBinaryPath();
  const dir = join(bin, '..');
  if (existsSync(bin)) return bin;
  const go = requireTool(GO, 'to build the Toxiproxy server');
  log(`building toxiproxy ${TOXIPROXY_VERSION} with go install (first use only)`);
  run(go, ['install', `github.com/Shopify/toxiproxy/v2/cmd/server@v${TOXIPROXY_VERSION}`], {
    what: 'building toxiproxy',
    hint: GO_PROXY_HINT,
    env: { ...process.env, GOBIN: dir, CGO_ENABLED: '0' },
  });
  if (!existsSync(bin)) throw new InfraError(`go install finished but ${bin} is missing`);
  return bin;
}

export interface ToxicSpec {
  type: 'latency' | 'bandwidth' | 'slow_close' | 'timeout' | 'reset_peer' | 'slicer' | 'limit_data';
  name: string;
  stream: 'upstream' | 'downstream';
  toxicity?: number;
  attributes: Record<string, number>;
}

/** A handle on a Toxiproxy server's HTTP API (ours or one the user runs). */
export class ToxiproxyApi {
  readonly client: Toxiproxy;
  constructor(readonly url: string) {
    this.client = new Toxiproxy(url);
  }

  async healthy(): Promise<boolean> {
    try {
      await this.client.getVersion();
      return true;
    } catch {
      return false;
    }
  }

  /** Creates (or replaces) a proxy listening on 127.0.0.1:listenPort. */
  createProxy(name: string, listenPort: number, upstream: string): Promise<Proxy> {
    return this.createProxyAt(name, `127.0.0.1:${listenPort}`, upstream);
  }

  /** Creates (or replaces) a proxy listening on host:port `listen`. */
  async createProxyAt(name: string, listen: string, upstream: string): Promise<Proxy> {
    try {
      const old = await this.client.get(name);
      await old.remove();
    } catch {
      /* none yet */
    }
    return this.client.createProxy({ name, listen, upstream, enabled: true });
  }

  /** Points a proxy at another upstream (Toxiproxy restarts it: its connections are dropped). */
  async setUpstream(name: string, upstream: string): Promise<void> {
    const p = await this.client.get(name);
    await p.update({ enabled: p.enabled, listen: p.listen, upstream });
  }

  async upstreamOf(name: string): Promise<string> {
    return (await this.client.get(name)).upstream;
  }

  async setEnabled(name: string, enabled: boolean): Promise<void> {
    const p = await this.client.get(name);
    await p.update({ enabled, listen: p.listen, upstream: p.upstream });
  }

  async addToxic(proxy: string, toxic: ToxicSpec): Promise<void> {
    const p = await this.client.get(proxy);
    await p.addToxic({
      name: toxic.name,
      type: toxic.type as never,
      stream: toxic.stream as never,
      toxicity: toxic.toxicity ?? 1,
      attributes: toxic.attributes as never,
    });
  }

  async removeToxic(proxy: string, name: string): Promise<void> {
    const res = await fetch(`${this.url}/proxies/${encodeURIComponent(proxy)}/toxics/${encodeURIComponent(name)}`, { method: 'DELETE' });
    if (!res.ok && res.status !== 404) throw new Error(`toxiproxy: removing toxic ${name} from ${proxy}: HTTP ${res.status}`);
  }

  /** The proxy as Toxiproxy reports it: evidence that a fault is (or is no longer) in place. */
  async describe(proxy: string): Promise<{ name: string; enabled: boolean; toxics: { name: string; type: string; stream: string }[] }> {
    const res = await fetch(`${this.url}/proxies/${encodeURIComponent(proxy)}`);
    if (!res.ok) throw new Error(`toxiproxy: proxy ${proxy}: HTTP ${res.status}`);
    return (await res.json()) as never;
  }

  async removeProxy(name: string): Promise<void> {
    await fetch(`${this.url}/proxies/${encodeURIComponent(name)}`, { method: 'DELETE' });
  }
}

export interface ToxiproxyServer {
  api: ToxiproxyApi;
  port: number;
  process: LocalProcess;
  stop(): Promise<void>;
}

/** Starts a private Toxiproxy server on a free loopback port. */
export async function startToxiproxy(opts: { workDir: string; persistent?: boolean; log?: (l: string) => void }): Promise<ToxiproxyServer> {
  const bin = ensureToxiproxyBinary(opts.log);
  mkdirSync(opts.workDir, { recursive: true });
  const port = await freePort();
  const proc = LocalProcess.start({
    name: 'toxiproxy',
    command: bin,
    args: ['-host', '127.0.0.1', '-port', String(port)],
    logFile: join(opts.workDir, 'toxiproxy.log'),
    pidFile: join(opts.workDir, 'toxiproxy.pid'),
    persistent: opts.persistent,
  });
  const api = new ToxiproxyApi(`http://127.0.0.1:${port}`);
  await proc.waitHealthy(() => api.healthy(), 15_000, 100);
  return { api, port, process: proc, stop: () => proc.stop('SIGTERM', 5_000) };
}
