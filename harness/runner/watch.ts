import { nowMicros } from '../clock.ts';
import { InfraError } from '../errors.ts';
import type { WorkerHandle } from '../workers/handle.ts';
import type { WorkerStats } from '../workers/protocol.ts';
import type { Scenario } from '../spec/types.ts';
import type { ConsumerGroup } from './consumer-group.ts';
import type { Progress } from './progress.ts';
import type { RunRecord } from './record.ts';

/** What the watch reads of a run (its context has all of it). */
export interface WatchedRun {
  readonly scenario: Pick<Scenario, 'workload'>;
  readonly record: RunRecord;
  readonly progress: Progress;
  readonly consumers: ConsumerGroup;
  readonly publishing?: { publishers(): WorkerHandle[]; workers(): WorkerHandle[] };
}

/** The sum of one stat over some workers. */
export function sum(ws: readonly WorkerHandle[], field: keyof WorkerStats): number {
  return ws.reduce((n, w) => n + Number(w.stats[field]), 0);
}

/**
 * Messages in flight in the workers still running: a process that exited (killed, or gone from
 * its group) holds none any more, whatever its last stats said.
 */
export function inFlightNow(ws: readonly Pick<WorkerHandle, 'exited' | 'stats'>[]): number {
  return ws.reduce((n, w) => n + (w.exited ? 0 : Number(w.stats.inFlight)), 0);
}

/**
 * The runner's look at its workers while messages flow (produce, fault windows, drain): the
 * progress line, the worst loop lag, and a worker that died without a fault killing it, which
 * ends the run (its verdict is then unknown).
 */
export class RunWatch {
  private lastSent = 0;
  private lastApplied = 0;
  private lastTick = Date.now();

  constructor(private readonly ctx: () => WatchedRun) {}

  /** Every process that publishes or consumes, live now. */
  workers(): WorkerHandle[] {
    const ctx = this.ctx();
    return [...(ctx.publishing?.workers() ?? []), ...ctx.consumers.live];
  }

  tick(phase: string): void {
    const ctx = this.ctx();
    const publishers = ctx.publishing?.publishers() ?? [];
    const consumers = ctx.consumers.all();
    const sent = sum(publishers, 'sent');
    const applied = sum(consumers, 'applied');
    const dt = Math.max(0.001, (Date.now() - this.lastTick) / 1000);
    const w = ctx.scenario.workload;
    ctx.progress.update({
      phase, elapsedS: (nowMicros() - ctx.record.startUs) / 1e6, totalS: (w.warmupMs + (w.durationMs ?? 0)) / 1000, sentRate: (sent - this.lastSent) / dt,
      processedRate: (applied - this.lastApplied) / dt, backlog: Math.max(0, sum(publishers, 'acked') - applied), errors: sum(consumers, 'errors'),
      stale: sum(consumers, 'stale'),
    });
    this.lastSent = sent;
    this.lastApplied = applied;
    this.lastTick = Date.now();
    const watched = this.workers();
    ctx.record.worstLoopLagMs = Math.max(ctx.record.worstLoopLagMs, ...watched.map((w) => w.stats.loopLagMs));
    for (const w of watched) {
      if (w.exited && w.exitCode !== 0 && !w.killedByFault) {
        const why = w.fatalReport;
        throw new InfraError(`worker ${w.id} died (exit ${w.exitCode})${why ? `: ${why.message}` : ''}; see ${w.logFile}`, why?.detail ?? []);
      }
    }
  }
}
