/**
 * The request proxy (request-proxy/src, Java): a Kafka protocol proxy put between each node's
 * Toxiproxy proxy and the node, so request faults can act on single requests while the network
 * faults keep working (chained: client -> Toxiproxy -> request proxy -> broker). It is put in
 * place when the run starts, before any client connects, by pointing the Toxiproxy proxies at
 * it, and taken out at the end (upstreams restored, process stopped; the reaper stops it if the
 * harness dies, and a reused cluster's health check restores the upstreams).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InfraError } from '../../harness/errors.ts';
import { sleep } from '../../harness/clock.ts';
import { ToxiproxyApi } from '../../harness/net/toxiproxy.ts';
import { LocalProcess } from '../../harness/runtime/process.ts';
import { JAVA, requireTool } from '../../harness/runtime/requirements.ts';
import { ensureJavaProgram } from './java-build.ts';

const SOURCES = fileURLToPath(new URL('./request-proxy/src', import.meta.url));

export interface RequestProxy {
  controlUrl: string;
  /** The process's last log lines (its warnings), for evidence. */
  tail(): string[];
  running(): boolean;
  remove(): Promise<void>;
}

export async function insertRequestProxy(opts: {
  version: string;
  /** The Toxiproxy proxies the clients go through, one per node; their upstreams become the request proxy's. */
  proxies: string[];
  toxiproxyUrl: string;
  adminBootstrap: string[];
  workDir: string;
  log: (l: string) => void;
}): Promise<RequestProxy> {
  const classpath = ensureJavaProgram({ name: "convoy's request proxy", purpose: "to compile convoy's Kafka request proxy (request faults)", sources: SOURCES, version: opts.version, log: opts.log });
  const java = requireTool(JAVA, "to run convoy's Kafka request proxy");
  const logFile = join(opts.workDir, 'request-proxy.log');
  const api = new ToxiproxyApi(opts.toxiproxyUrl);
  const upstreams = await Promise.all(opts.proxies.map((name) => api.upstreamOf(name)));
  // C1 only and one compiler thread: a proxy that mostly copies frames gains little from C2,
  // whose compiling would be most of its CPU in a run of seconds.
  const args = ['-Xms32m', '-Xmx192m', '-XX:+UseSerialGC', '-XX:-UsePerfData', '-XX:TieredStopAtLevel=1', '-XX:CICompilerCount=1', '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', '-cp', classpath, 'convoy.proxy.Main', '--admin', opts.adminBootstrap.join(',')];
  // Each listener is named for its node (node-<id>, from the Toxiproxy proxy's name), so a rule
  // can select the connections to one node (leaderOf).
  const listenerOf = (proxy: string, i: number) => /node-\d+$/.exec(proxy)?.[0] ?? `n${i}`;
  opts.proxies.forEach((p, i) => args.push('--listen', `${listenerOf(p, i)}=${upstreams[i]}`));
  // The log may hold an earlier proxy's lines (a folder used again): read only what this one writes.
  const from = existsSync(logFile) ? statSync(logFile).size : 0;
  const proc = LocalProcess.start({ name: 'request proxy', command: java, args, logFile });
  const ready = await readyLine(proc, logFile, from);
  const restored: { name: string; upstream: string }[] = [];
  try {
    for (const [i, name] of opts.proxies.entries()) {
      const port = ready.listeners[listenerOf(name, i)];
      if (!port) throw new InfraError(`the request proxy took no port for ${name}`);
      restored.push({ name, upstream: upstreams[i]! });
      await api.setUpstream(name, `127.0.0.1:${port}`);
    }
  } catch (err) {
    for (const r of restored) await api.setUpstream(r.name, r.upstream).catch(() => {});
    await proc.stop('SIGKILL');
    throw err;
  }
  opts.log(`request proxy in place on ${opts.proxies.length} client link(s) (control 127.0.0.1:${ready.control})`);
  let removed = false;
  return {
    controlUrl: `http://127.0.0.1:${ready.control}`,
    tail: () => proc.tail(20),
    running: () => proc.running,
    async remove() {
      if (removed) return;
      removed = true;
      for (const r of restored) await api.setUpstream(r.name, r.upstream).catch((e: Error) => opts.log(`restoring ${r.name}'s upstream: ${e.message}`));
      await proc.stop('SIGTERM', 3_000);
    },
  };
}

/** The proxy's first stdout line: `{"listeners":{"node-1":40123},"control":40124}`. */
async function readyLine(proc: LocalProcess, logFile: string, from: number): Promise<{ listeners: Record<string, number>; control: number }> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (!proc.running) throw new InfraError('the request proxy exited while starting; last log lines:', proc.tail());
    if (existsSync(logFile)) {
      const line = readFileSync(logFile).subarray(from).toString('utf8').split('\n').find((l) => l.startsWith('{"listeners"'));
      if (line) return JSON.parse(line) as { listeners: Record<string, number>; control: number };
    }
    await sleep(50);
  }
  await proc.stop('SIGKILL');
  throw new InfraError('the request proxy did not say it was ready within 30 s; last log lines:', proc.tail());
}
