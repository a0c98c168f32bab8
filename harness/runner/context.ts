/**
 * The run context: what a run's stages share (harness/runner/stages/). The run opens it, each
 * stage reads it and may add to it (the deployment, the admin, the workers, the fault timeline),
 * and each stage says how to undo what it did (`defer`); the run closes it by undoing in reverse
 * order, on any exit.
 */
import { mkdirSync, createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { BrokerAdmin, BrokerModule, BrokerSettings, Deployment, RunNames } from '../broker/contract.ts';
import { loadBroker } from '../broker/registry.ts';
import { redactString } from '../checker/redact.ts';
import { nowMicros } from '../clock.ts';
import type { FaultContext, FaultKind } from '../faults/contract.ts';
import type { FaultTimeline } from '../faults/timeline.ts';
import { HistoryWriter } from '../history/writer.ts';
import { onInterrupt } from '../runtime/cleanup.ts';
import type { Scenario } from '../spec/types.ts';
import { WorkerHandle } from '../workers/handle.ts';
import type { WorkerInit } from '../workers/protocol.ts';
import { ConsumerGroup } from './consumer-group.ts';
import { notReached } from './drain-rules.ts';
import { drainPlan, type DrainPlan } from '../scenario/drain-plan.ts';
import { Progress } from './progress.ts';
import type { RunOptions, RunRecord, RunStage } from './record.ts';
import { newRunId } from './run-id.ts';
import { RunWatch } from './watch.ts';
import { mergeHistories } from './merge-histories.ts';
import type { Placement, PlacedRole } from './placement.ts';

/** One step of a run: it does its job, and `defer`s what undoes it before anything can fail. */
export interface Stage {
  name: RunStage;
  /** An optional stage says when it runs; without this it always does. */
  applies?(ctx: RunContext): boolean | Promise<boolean>;
  run(ctx: RunContext): Promise<void>;
}

/**
 * What publishes the run's messages: the producers, or a stage that takes their place (the
 * order service). `drivers` get the start instant and decide when sending is over.
 */
export interface Publishing {
  drivers: WorkerHandle[];
  /** The processes that send to the broker, whose sent and acked counts are the run's. */
  publishers(): WorkerHandle[];
  /** Every process of the publishing side, watched for a death and for its loop lag. */
  workers(): WorkerHandle[];
  /** After the drivers finished: waits (bounded) for the last sends; a reason when they did not end. */
  settle?(signal: AbortSignal): Promise<string | null>;
}

export interface RunContext {
  readonly scenario: Scenario;
  readonly opts: RunOptions;
  readonly names: RunNames;
  readonly runDir: string;
  /** Each process's own history file goes here; they are merged at the end. */
  readonly histDir: string;
  readonly record: RunRecord;
  /** The runner's own history (marks, the fault timeline, what the broker still holds). */
  readonly history: HistoryWriter;
  readonly signal: AbortSignal;
  readonly progress: Progress;
  readonly watch: RunWatch;
  readonly broker: BrokerModule;
  readonly settings: BrokerSettings;
  readonly drainPlan: DrainPlan;
  readonly consumers: ConsumerGroup;
  log(line: string): void;
  mark(name: string, detail?: unknown): void;
  /** Registers what undoes a stage's work; run in reverse order when the run ends, however it ends. */
  defer(what: string, undo: () => unknown): void;
  /** A worker's init: the run's basics, what stages added (`initExtras`), then `extra`. */
  workerInit(role: WorkerInit['role'], id: string, extra?: Partial<WorkerInit>): WorkerInit;
  initExtras: Partial<WorkerInit>;
  faultKinds: Map<string, FaultKind>;
  deployment?: Deployment;
  admin?: BrokerAdmin;
  publishing?: Publishing;
  timeline?: FaultTimeline;
  /** Called with the start instant, once the drivers have it. */
  onStart: ((startUs: number) => void)[];
  /** What optional stages add to the fault kinds' context (the owner's controls, the order service's relays). */
  faultContext: Partial<FaultContext>;
  /** Parts of the run served from this process (a broker, the owner): a stall of the runner is theirs too. */
  inRunner: string[];
  /** The run's log file; the console gets only what `log` is given. */
  readonly logStream: WriteStream;
  /** Where workers go when the run has agents (stages/agents.ts); here otherwise. */
  placement?: Placement;
  /** A producer's or consumer's handle, here or on an agent (placement.ts). */
  newWorker(role: PlacedRole, init: WorkerInit, logFile: string): WorkerHandle;
}

/** Opens a run: its folder, log, history, clock bounds (Ctrl-C, run.maxDurationMs) and context. */
export async function openRun(scenario: Scenario, opts: RunOptions): Promise<RunContext & { close(): Promise<void> }> {
  const runId = opts.runId ?? newRunId(scenario.name);
  const runDir = join(opts.resultsDir, runId);
  const histDir = join(runDir, 'history');
  mkdirSync(histDir, { recursive: true });
  const logStream = createWriteStream(join(runDir, 'run.log'), { flags: 'a' });
  const log = (line: string) => {
    // A client's error can quote its connection URL: neither the log nor the console shows a secret (checker/redact.ts).
    const safe = redactString(line);
    logStream.write(`${new Date().toISOString()} ${safe}\n`);
    opts.log?.(safe);
  };
  const broker = await loadBroker(scenario.broker.kind);
  const settings = broker.resolveSettings(scenario.broker);
  const plan = drainPlan(broker.redeliveryHorizonMs?.(settings) ?? 0, scenario.run.drainTimeoutMs);
  const record: RunRecord = {
    runId, runDir, historyFile: join(runDir, 'history.jsonl'), storeFile: join(runDir, 'state.sqlite'), scenario,
    startUs: 0, measureStartUs: 0, endUs: 0, faults: [], producerStats: {}, consumerStats: {},
    incomplete: [], worstLoopLagMs: 0, drain: notReached(plan), gaveUp: null, interrupted: false,
  };
  const history = new HistoryWriter(join(histDir, 'runner.jsonl'));
  const mark = (name: string, detail?: unknown) => history.write({ type: 'mark', at: nowMicros(), name, detail });
  const names: RunNames = { runId, prefix: `convoy-${runId}` };

  const abort = new AbortController();
  const undos: { what: string; undo: () => unknown }[] = [];
  const progress = new Progress(scenario.name, undefined, opts.progress !== false);
  // Both read the context only once the stages run.
  const watch = new RunWatch(() => ctx);
  const consumers = new ConsumerGroup(
    { runDir, histDir },
    (id, historyFile) => ctx.workerInit('consumer', id, { historyFile }),
    (w) => mark('worker-started', { id: w.id, role: 'consumer', pid: w.pid, ...(w.where ? { agent: w.where } : {}) }),
    (init, logFile) => ctx.newWorker('consumers', init, logFile),
  );
  const ctx: RunContext & { close(): Promise<void> } = {
    scenario, opts, names, runDir, histDir, record, history, signal: abort.signal, progress, watch, consumers, broker, settings, drainPlan: plan, log, mark, logStream,
    defer: (what, undo) => void undos.push({ what, undo }),
    initExtras: {},
    workerInit: (role, id, extra = {}) => ({
      role, id, brokerKind: broker.name, endpoint: ctx.deployment!.endpoint, settings, names, scenario,
      historyFile: join(histDir, `${id}.jsonl`), storeFile: record.storeFile, ...ctx.initExtras, ...extra,
    }),
    newWorker: (role, init, logFile) =>
      ctx.placement ? ctx.placement.worker(role, init, logFile, log, ctx.deployment?.host) : new WorkerHandle(init, logFile, log, ctx.deployment?.host),
    faultKinds: new Map(),
    onStart: [],
    faultContext: {},
    inRunner: [],
    close: async () => {
      clearTimeout(hardStop);
      progress.stop();
      record.endUs = nowMicros();
      for (const { what, undo } of undos.reverse()) {
        try {
          await undo();
        } catch (e) {
          log(`${what}: ${(e as Error).message}`);
        }
      }
      offInterrupt();
      history.close();
      await mergeHistories(histDir, record.historyFile);
      // The processes' parts are in the merged file, line for line; nothing reads them after it.
      rmSync(histDir, { recursive: true, force: true });
      logStream.end();
    },
  };

  const offInterrupt = onInterrupt(() => {
    record.interrupted = true;
    record.incomplete.push('interrupted (Ctrl-C)');
    abort.abort();
  });
  const hardStop = setTimeout(() => {
    record.incomplete.push(`the run exceeded its bound of ${scenario.run.maxDurationMs} ms`);
    abort.abort();
  }, scenario.run.maxDurationMs);
  return ctx;
}
