/**
 * A broker node that is one local process (an emulator: ElasticMQ, pstest): start it and
 * wait until healthy, stop it with a signal, start it again on the same ports. A node started
 * by an earlier convoy process (`brokers up`) is adopted through its pid file.
 */
import { readFileSync, rmSync } from 'node:fs';
import type { BrokerNode } from './contract.ts';
import { sleep } from '../clock.ts';
import { InfraError } from '../errors.ts';
import { LocalProcess, pidAlive, processMemory, signalGroup } from '../runtime/process.ts';

export interface NodeProcess {
  /** For messages: "elasticmq on 4567". */
  name: string;
  /** Resolved at each start, so a missing tool is reported when it is needed. */
  command: () => string;
  args: string[];
  cwd: string;
  logFile: string;
  pidFile: string;
  healthy: () => Promise<boolean>;
  startTimeoutMs: number;
  /** Health poll interval. */
  pollMs: number;
  /** How long SIGTERM may take before SIGKILL. */
  stopGraceMs: number;
  /** The error for a node that did not become healthy (the log's telling lines). */
  startFailure: (err: Error) => InfraError;
  /** The log line once healthy. */
  started: (startupMs: number) => string;
}

export class ProcessNode implements BrokerNode {
  readonly id = 'node-1';
  private proc?: LocalProcess;
  private adoptedPid?: number;
  /** Spawn to healthy, of the last start. */
  startupMs = 0;

  constructor(
    readonly spec: NodeProcess,
    private readonly persistent: boolean,
    private readonly log: (line: string) => void,
    /** Called after every start (an owner updates its instance record with the new pid). */
    public onStarted: () => void = () => {},
  ) {}

  /** A node left running by an earlier convoy process, known by its pid file. */
  static adopt(spec: NodeProcess, log: (line: string) => void): ProcessNode {
    const node = new ProcessNode(spec, true, log);
    const pid = Number(readFileSync(spec.pidFile, 'utf8').trim());
    node.adoptedPid = pid > 0 ? pid : undefined;
    return node;
  }

  pid(): number | undefined {
    if (this.proc?.running) return this.proc.pid;
    return this.adoptedPid && pidAlive(this.adoptedPid) ? this.adoptedPid : undefined;
  }

  memory(): { rssBytes: number; peakRssBytes: number } | undefined {
    return processMemory(this.pid());
  }

  async start(): Promise<void> {
    if (this.pid()) return;
    const s = this.spec;
    const command = s.command();
    const t0 = Date.now();
    const proc = LocalProcess.start({ name: s.name, command, args: s.args, cwd: s.cwd, logFile: s.logFile, pidFile: s.pidFile, persistent: this.persistent });
    this.proc = proc;
    this.adoptedPid = undefined;
    try {
      await proc.waitHealthy(s.healthy, s.startTimeoutMs, s.pollMs);
    } catch (err) {
      await proc.stop('SIGKILL', 5_000);
      this.proc = undefined;
      throw s.startFailure(err as Error);
    }
    this.startupMs = Date.now() - t0;
    this.log(s.started(this.startupMs));
    this.onStarted();
  }

  async stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    const grace = this.spec.stopGraceMs;
    if (this.proc) {
      await this.proc.stop(signal, grace);
      this.proc = undefined;
      return;
    }
    const pid = this.pid();
    if (!pid) return;
    signalGroup(pid, signal);
    const deadline = Date.now() + grace;
    while (pidAlive(pid) && Date.now() < deadline) await sleep(50);
    if (pidAlive(pid)) signalGroup(pid, 'SIGKILL');
    while (pidAlive(pid)) await sleep(50);
    this.adoptedPid = undefined;
    rmSync(this.spec.pidFile, { force: true });
  }
}
