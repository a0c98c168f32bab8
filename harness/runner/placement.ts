/**
 * Where a run's workers go: here, or on convoy agents (`--agent`, harness/agent/). Producers and
 * consumers each go round the agents that take their role, in the order given (`here`, as in
 * `--agent consumers=here`, takes this host's turn); with no agent for a role, its workers run
 * here. A worker placed on an agent writes its files in the run's folder there (its history,
 * its log, the consumers' store), which are copied back as they grow.
 *
 * A SQLite store is a file on one host, so consumers on several hosts would each keep their own.
 * With a PostgreSQL store (`consumers.store: postgres`) they share one: the server runs here, on
 * the runner host, and each agent's consumers reach it at this host's address as that agent
 * sees it (AgentLink.runnerAddress).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InfraError } from '../errors.ts';
import type { BrokerHost } from '../broker/in-process.ts';
import { AgentLink, agentName, parseAgentAddress, type AgentAddress } from '../agent/client.ts';
import { remoteWorker, remoteName } from '../agent/remote-worker.ts';
import { measureOffset } from '../agent/clock-offset.ts';
import type { ClockEvent } from '../history/events.ts';
import { WorkerHandle } from '../workers/handle.ts';
import type { WorkerInit } from '../workers/protocol.ts';

/** The roles an agent takes: `--agent producers=host:port`, or both. */
export type PlacedRole = 'producers' | 'consumers';
export interface AgentPlacement {
  /** 'here': this host takes its turn in the roles' rotation. */
  address: AgentAddress | 'here';
  roles: PlacedRole[];
}

/** A place in a role's rotation: an agent, or this host (null). */
interface Place {
  link: AgentLink | null;
  roles: PlacedRole[];
}

/** The environment variable holding the agents' shared token. */
export const AGENT_TOKEN_ENV = 'CONVOY_AGENT_TOKEN';
/**
 * The environment variable naming a PEM file: the CA that signed the agents' certificates (agents
 * started with --tls-cert and --tls-key). With it every agent connection is TLS, checked against
 * that CA and the agent's address; without it, plain TCP.
 */
export const AGENT_CA_ENV = 'CONVOY_AGENT_CA';

/** The agents' CA from CONVOY_AGENT_CA, or undefined; a file that cannot be read is one line. */
export function agentCa(): string | undefined {
  const file = process.env[AGENT_CA_ENV];
  if (!file) return undefined;
  try {
    const pem = readFileSync(file, 'utf8');
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate in it');
    return pem;
  } catch (err) {
    throw new InfraError(`--agent: ${AGENT_CA_ENV}=${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

/**
 * `--agent producers=10.0.0.2:7411`: an agent and the roles it takes (both without a role);
 * `here` is this host's turn. One agent named twice (`producers=a`, `consumers=a`) is one agent
 * with both roles: a run has one control connection per agent.
 */
export function agentPlacements(flags: string[], flag = '--agent'): AgentPlacement[] {
  const out: AgentPlacement[] = [];
  for (const text of flags) {
    const m = /^(producers|consumers)=(.*)$/.exec(text);
    const where = m ? m[2]! : text;
    const roles: PlacedRole[] = m ? [m[1] as PlacedRole] : ['producers', 'consumers'];
    if (where.trim() === 'here') {
      out.push({ address: 'here', roles }); // a turn of its own each time
      continue;
    }
    const address = parseAgentAddress(where, flag);
    const same = out.find((a) => a.address !== 'here' && a.address.host === address.host && a.address.port === address.port);
    if (same) same.roles = (['producers', 'consumers'] as const).filter((r) => same.roles.includes(r) || roles.includes(r));
    else out.push({ address, roles });
  }
  return out;
}

/** The scenario's `placement:` section as placements (`--agent` on the command line replaces it). */
export function scenarioPlacements(placement: { producers?: string[]; consumers?: string[] } | undefined): AgentPlacement[] {
  if (!placement) return [];
  return agentPlacements((['producers', 'consumers'] as const).flatMap((role) => (placement[role] ?? []).map((a) => `${role}=${a}`)), 'placement:');
}

export class Placement {
  private readonly next = new Map<PlacedRole, number>();
  private readonly copies: Array<() => Promise<void>> = [];
  /** The workers each agent ran, by its name. */
  private readonly placed = new Map<string, string[]>();
  private clockTimer?: NodeJS.Timeout;
  private writeClock?: (e: ClockEvent) => void;

  /** The agents connected (`places` without this host). */
  private readonly links: Array<{ link: AgentLink; roles: PlacedRole[] }>;
  /** Consumers on more than one host, each keeping its own SQLite store, none of them the run's. */
  readonly consumersSplit: boolean;

  private constructor(
    private readonly places: Place[],
    /** The consumers' store is a server of the run's (PostgreSQL), not a file on their host. */
    private readonly sharedStore: boolean,
  ) {
    this.links = places.flatMap((p) => (p.link ? [{ link: p.link, roles: p.roles }] : []));
    this.consumersSplit = !sharedStore && places.filter((p) => p.roles.includes('consumers')).length > 1;
  }

  /**
   * Connects to every agent; one clear line when one cannot be reached or refuses. Consumers
   * on several hosts with a SQLite store each keep their own (a file), so the run's final state
   * cannot be judged: refused unless `splitStoreAllowed` (the scenario expects any wrong state).
   * With `sharedStore` (PostgreSQL, on this host) they share the run's.
   */
  static async connect(agents: AgentPlacement[], runId: string, onLost: (agent: string, reason: string) => void, splitStoreAllowed = false, sharedStore = false): Promise<Placement> {
    const token = process.env[AGENT_TOKEN_ENV];
    const remote = agents.filter((a) => a.address !== 'here');
    if (!token && remote.length > 0) throw new InfraError(`--agent: set ${AGENT_TOKEN_ENV} to the token the agents were started with`);
    const consumerHosts = agents.filter((a) => a.roles.includes('consumers'));
    if (consumerHosts.length > 1 && !splitStoreAllowed && !sharedStore) {
      throw new InfraError(
        `--agent: consumers on ${consumerHosts.length} hosts (${consumerHosts.map((a) => (a.address === 'here' ? 'here' : agentName(a.address))).join(', ')}) would each keep their own SQLite entity store; place them on one host, set consumers.store: postgres, or expect wrong-state: any (the final state is then not judged)`,
      );
    }
    const tlsCa = remote.length > 0 ? agentCa() : undefined;
    const places: Place[] = [];
    try {
      for (const a of agents) {
        if (a.address === 'here') {
          places.push({ link: null, roles: a.roles });
          continue;
        }
        const link = await AgentLink.connect({ address: a.address, token: token!, runId, tlsCa });
        link.onLost((reason) => onLost(link.name, reason));
        places.push({ link, roles: a.roles });
      }
    } catch (err) {
      await Promise.all(places.map((p) => p.link?.bye()));
      throw err;
    }
    return new Placement(places, sharedStore);
  }

  /** This host's addresses as the agents that run consumers reach it (where they reach its PostgreSQL store). */
  consumerRunnerAddresses(): string[] {
    return [...new Set(this.links.filter((l) => l.roles.includes('consumers')).map((l) => l.link.runnerAddress))];
  }

  /** The agent a new worker of `role` goes to, or undefined: here. */
  private agentFor(role: PlacedRole): AgentLink | undefined {
    const takers = this.places.filter((l) => l.roles.includes(role));
    if (takers.length === 0) return undefined;
    const i = this.next.get(role) ?? 0;
    this.next.set(role, i + 1);
    return takers[i % takers.length]!.link ?? undefined;
  }

  /**
   * A worker's handle, here or on an agent. There, its files are named in the run's folder of
   * the agent, and copied to the paths `init` gives here.
   */
  worker(role: PlacedRole, init: WorkerInit, logFile: string, log: (line: string) => void, host: BrokerHost | undefined): WorkerHandle {
    const link = this.agentFor(role);
    if (!link) return new WorkerHandle(init, logFile, log, host);
    const dir = link.info.runDir;
    const remoteInit: WorkerInit = { ...init, historyFile: join(dir, remoteName(init.historyFile)), storeFile: join(dir, remoteName(init.storeFile)) };
    // The run's PostgreSQL store, at this host's address as that agent reaches it.
    if (init.store?.kind === 'postgres') remoteInit.store = { kind: 'postgres', url: withHost(init.store.url, link.runnerAddress) };
    const port = remoteWorker(link, init.id, [
      { remote: remoteName(init.historyFile), local: init.historyFile, wholeLines: true },
      { remote: `${init.id}.log`, local: logFile, wholeLines: false },
    ], log);
    this.copies.push(port.copied);
    const ids = this.placed.get(link.name) ?? [];
    if (!ids.includes(init.id)) ids.push(init.id);
    this.placed.set(link.name, ids);
    return new WorkerHandle(remoteInit, logFile, log, host, port);
  }

  /** The consumers' store, copied here from the agent that held them (SQLite and its write-ahead log). */
  private async copyStore(storeFile: string): Promise<void> {
    const held = this.links.find((l) => l.roles.includes('consumers'));
    if (!held || this.consumersSplit) return; // split: this host's own store stays
    for (const suffix of ['', '-wal']) {
      const parts: Buffer[] = [];
      for (let offset = 0; ; ) {
        const bytes = await held.link.read(`${remoteName(storeFile)}${suffix}`, offset);
        if (bytes.length === 0) break;
        parts.push(bytes);
        offset += bytes.length;
      }
      rmSync(`${storeFile}${suffix}`, { force: true });
      if (parts.length) writeFileSync(`${storeFile}${suffix}`, Buffer.concat(parts));
    }
    rmSync(`${storeFile}-shm`, { force: true });
  }

  /**
   * Measures every agent's clock against this one now, every `everyMs` while the run goes on,
   * and once more when it finishes; each measurement is a `clock` event for the history, naming
   * the workers placed there so far (the checker maps their times by it).
   */
  async watchClocks(write: (e: ClockEvent) => void, everyMs = 5_000): Promise<void> {
    this.writeClock = write;
    await this.measureClocks();
    this.clockTimer = setInterval(() => void this.measureClocks(), everyMs);
    this.clockTimer.unref();
  }

  private measureClocks(): Promise<void> {
    const write = this.writeClock;
    if (!write) return Promise.resolve();
    return Promise.all(this.links.map(async ({ link }) => {
      if (link.lost) return;
      try {
        const m = await measureOffset(link);
        write({ type: 'clock', host: link.name, at: m.at, offset: m.offset, uncertainty: m.uncertainty, workers: [...(this.placed.get(link.name) ?? [])] });
      } catch {
        /* lost meanwhile: the run is incomplete already */
      }
    })).then(() => {});
  }

  /** The last of every worker's files and the consumers' store, then each agent forgets the run. */
  async finish(storeFile: string): Promise<void> {
    clearInterval(this.clockTimer);
    try {
      await this.measureClocks();
      await Promise.all(this.copies.map((c) => c().catch(() => {})));
      // A PostgreSQL store is copied into storeFile by its own stage (runner/stages/store.ts).
      if (!this.sharedStore) await this.copyStore(storeFile);
    } finally {
      await Promise.all(this.links.map((l) => l.link.bye().catch(() => {})));
    }
  }

  /** The agents' hosts and sizes, and the workers placed on each so far, for the record. */
  describe(): Array<{ agent: string; host: string; cores: number; roles: PlacedRole[]; workers: string[] }> {
    return this.links.map((l) => ({ agent: l.link.name, host: l.link.info.host, cores: l.link.info.cores, roles: l.roles, workers: this.placed.get(l.link.name) ?? [] }));
  }
}

/** A database URL with another host (an IPv6 address in brackets). */
export function withHost(url: string, host: string): string {
  const u = new URL(url);
  u.hostname = host.includes(':') ? `[${host}]` : host;
  return u.toString();
}
