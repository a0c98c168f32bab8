import { mkdirSync, createWriteStream, readdirSync, createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { BrokerAdmin, BrokerModule, Deployment, RunNames, RuntimeKind } from '../broker/contract.ts';
import { loadBroker } from '../broker/registry.ts';
import { openStrategyStore, usesOwner } from '../consumer/strategies/open.ts';
import { startOwner, type OwnerService } from '../owner/service.ts';
import { nowMicros, sleep } from '../clock.ts';
import { InfraError } from '../errors.ts';
import { faultKinds } from '../faults/registry.ts';
import { FaultTimeline } from '../faults/timeline.ts';
import { HistoryWriter } from '../history/writer.ts';
import { cacheDir } from '../runtime/cache.ts';
import { onCleanup, onInterrupt } from '../runtime/cleanup.ts';
import type { ProducerSpec, Scenario } from '../scenario/types.ts';
import { WorkerHandle } from '../workers/handle.ts';
import type { WorkerInit, WorkerStats } from '../workers/protocol.ts';
import { Progress } from './progress.ts';
import { CpuWatch, type CpuFigures } from './cpu-watch.ts';
import { newRunId } from './run-id.ts';
import { debugDetail } from '../verbosity.ts';
import { ensureRequirements } from '../setup/install.ts';
import { needsOf } from '../setup/setup.ts';
import { deepMerge } from '../scenario/deep-merge.ts';
import { historyHeader } from '../history/schema.ts';
import { drain, drainPlan, notReached, type DrainOutcome } from './drain.ts';
import { GiveUpWatch } from './give-up.ts';
import { sleepUntilFinished } from './wake.ts';
import { RunnerStallWatch, unexercisedWindows } from './runner-stall.ts';
import type { RemainingEvent } from '../history/events.ts';
import { startGateway, type GatewayRun } from '../gateway/start.ts';
import { relayCount } from '../gateway/check.ts';

export interface RunOptions {
  runtime: RuntimeKind;
  /** Parent folder of run folders (results/). */
  resultsDir: string;
  /** Keep the run's topics and queues after the run. */
  keep: boolean;
  allowDestructive: boolean;
  external?: Record<string, unknown>;
  runId?: string;
  log?: (line: string) => void;
  /** Show progress (a bar on a terminal, periodic lines otherwise). Default true. */
  progress?: boolean;
  /** A live deployment to use instead of deploying (benchmarks, suites); it is not stopped. */
  deployment?: Deployment;
  /** Adopt a recorded running broker of the same setup (default true); false: deploy its own. */
  reuseBrokers?: boolean;
}

/** What happened, for the analysis: the run's files and why it may be incomplete. */
export interface RunRecord {
  runId: string;
  runDir: string;
  historyFile: string;
  storeFile: string;
  scenario: Scenario;
  deployment?: Pick<Deployment, 'broker' | 'runtime' | 'versions' | 'emulator' | 'endpoint'>;
  /** Start of the producers' schedule and of the measured phase (after warm-up), run clock. */
  startUs: number;
  measureStartUs: number;
  endUs: number;
  faults: FaultTimeline['records'];
  producerStats: Record<string, WorkerStats>;
  consumerStats: Record<string, WorkerStats>;
  /** Reasons the run could not complete as planned: the verdict is then `unknown`. */
  incomplete: string[];
  /** Worst event-loop lag any worker reported, ms. */
  worstLoopLagMs: number;
  /** CPU use of the host and of each worker while the producers sent. */
  cpu?: CpuFigures;
  drain: DrainOutcome;
  /** Order-service runs: the load driver's and router's last stats, and the service's store. */
  gateway?: { driver: WorkerStats; services: Record<string, WorkerStats>; storeFile: string };
  /** Set when the run stopped sending early because its verdict was already unknown. */
  gaveUp: { atMs: number; reason: string } | null;
  interrupted: boolean;
  /** The error that stopped the run, if one did, and the stage it stopped (deploy, provision, ...). */
  failure?: Error;
  failedStage?: RunStage;
}

/** The stages of a run, in order: a run that fails says at which. */
export type RunStage = 'setup' | 'deploy' | 'provision' | 'consumers' | 'producers' | 'produce' | 'faults' | 'drain';

/**
 * One run of one scenario: deploy the broker, create the run's destinations, start the
 * consumers, then the producers on an open-loop schedule, run the fault timeline, drain, and
 * tear everything down. Returns the run's record; the analysis (checker, metrics, verdict) is
 * separate so that it can be repeated offline from the run's files.
 */
export async function executeRun(scenario: Scenario, opts: RunOptions): Promise<RunRecord> {
  const runId = opts.runId ?? newRunId(scenario.name);
  const runDir = join(opts.resultsDir, runId);
  const histDir = join(runDir, 'history');
  mkdirSync(histDir, { recursive: true });
  const logStream = createWriteStream(join(runDir, 'run.log'), { flags: 'a' });
  const progress = new Progress(scenario.name, undefined, opts.progress !== false);
  const log = (line: string) => {
    logStream.write(`${new Date().toISOString()} ${line}\n`);
    opts.log?.(line);
  };
  const names: RunNames = { runId, prefix: `convoy-${runId}` };
  const record: RunRecord = {
    runId, runDir, historyFile: join(runDir, 'history.jsonl'), storeFile: join(runDir, 'state.sqlite'), scenario,
    startUs: 0, measureStartUs: 0, endUs: 0, faults: [], producerStats: {}, consumerStats: {},
    incomplete: [], worstLoopLagMs: 0, drain: notReached(drainPlan(0, scenario.run.drainTimeoutMs)), gaveUp: null, interrupted: false,
  };
  const runnerHistory = new HistoryWriter(join(histDir, 'runner.jsonl'));
  const mark = (name: string, detail?: unknown) => runnerHistory.write({ type: 'mark', at: nowMicros(), name, detail });

  const abort = new AbortController();
  const offInterrupt = onInterrupt(() => {
    record.interrupted = true;
    record.incomplete.push('interrupted (Ctrl-C)');
    abort.abort();
  });
  const hardStop = setTimeout(() => {
    record.incomplete.push(`the run exceeded its bound of ${scenario.run.maxDurationMs} ms`);
    abort.abort();
  }, scenario.run.maxDurationMs);

  const broker: BrokerModule = await loadBroker(scenario.broker.kind);
  const settings = broker.resolveSettings(scenario.broker);
  const plan = drainPlan(broker.redeliveryHorizonMs?.(settings) ?? 0, scenario.run.drainTimeoutMs);
  record.drain = notReached(plan);
  let deployment: Deployment | undefined;
  let admin: BrokerAdmin | undefined;
  let timeline: FaultTimeline | undefined;
  let owner: OwnerService | undefined;
  let gateway: GatewayRun | undefined;
  const producers: WorkerHandle[] = [];
  const consumers: WorkerHandle[] = [];
  /** Consumer processes replaced after a kill: their counts still count. */
  const retired: WorkerHandle[] = [];
  const consumerGeneration = new Map<string, number>();
  const undoDeploy = onCleanup('stop brokers', async () => deployment?.stop());
  const runnerStalls = new RunnerStallWatch();

  const workerInit = (role: WorkerInit['role'], id: string, extra: Partial<WorkerInit> = {}): WorkerInit => ({
    role, id, brokerKind: broker.name, endpoint: deployment!.endpoint, settings, names, scenario,
    historyFile: join(histDir, `${id}.jsonl`), storeFile: record.storeFile, ...(owner ? { ownerUrl: owner.url } : {}), ...extra,
  });
  const startConsumer = (id: string): WorkerHandle => {
    const gen = (consumerGeneration.get(id) ?? 0) + 1;
    consumerGeneration.set(id, gen);
    const file = gen === 1 ? id : `${id}.${gen}`;
    const w = new WorkerHandle(
      workerInit('consumer', id, { historyFile: join(histDir, `${file}.jsonl`) }),
      join(runDir, `${file}.log`),
      log,
      deployment!.host,
    );
    mark('worker-started', { id, role: 'consumer', pid: w.pid });
    return w;
  };

  let stage: RunStage = 'setup';
  try {
    // 0. What the local runtime needs from the machine (installed as root, else one clear error).
    if (!opts.deployment && opts.runtime === 'local') ensureRequirements(needsOf([broker], false), log);
    // 1. Broker.
    stage = 'deploy';
    progress.update({ phase: 'deploy', elapsedS: 0, totalS: 1, sentRate: 0, processedRate: 0, backlog: 0, errors: 0, stale: 0 });
    deployment = opts.deployment
      ? { ...opts.deployment, stop: async () => {} }
      : await broker.deploy(
          { runtime: opts.runtime, workDir: join(runDir, 'brokers'), cacheDir: cacheDir(), external: opts.external, log, signal: abort.signal, reuse: opts.reuseBrokers ?? true },
          settings,
        );
    record.deployment = { broker: deployment.broker, runtime: deployment.runtime, versions: deployment.versions, emulator: deployment.emulator, endpoint: deployment.endpoint };
    stage = 'provision';
    admin = await broker.admin(deployment.endpoint, settings, names);
    await admin.createDestinations();
    mark('destinations-created');

    // 2. Consumers first, so they hold their lanes before the first message. The store they
    // share is created here, once, rather than by all of them at the same moment.
    stage = 'consumers';
    (await openStrategyStore(record.storeFile, scenario)).close();
    // The fault kinds are loaded before the producers' clock starts: loading them after the
    // start message took long enough on a busy machine for a short run's producers to finish
    // first, and the timeline, armed too late, never ran its faults.
    const kinds = await faultKinds();
    // The entities' owner, when the consumers read it or a fault acts on it.
    if ((await usesOwner(scenario)) || scenario.faults.some((f) => kinds.get(f.kind)?.usesOwner)) {
      owner = await startOwner(scenario);
      mark('owner-started', { url: owner.url });
    }
    for (let i = 1; i <= scenario.consumers.processes; i++) consumers.push(startConsumer(`c${i}`));
    await Promise.all(consumers.map((c) => c.waitFor('ready', 90_000, 'consumer start-up')));
    mark('consumers-ready');

    // 3. Producers, then the shared start instant.
    stage = 'producers';
    // An order service under HTTP load (workload.gateway) instead of producers: its instances
    // and relays publish, its load driver decides when the sending is over.
    if (scenario.workload.gateway) {
      const lanes = relayCount(scenario, broker.capabilities?.(settings, opts.runtime));
      gateway = await startGateway(scenario, { runDir, histDir, lanes, makeInit: workerInit, log, host: deployment.host });
      for (const w of gateway.all()) mark('worker-started', { id: w.id, role: w.init.role, pid: w.pid });
    }
    for (const p of gateway ? [] : scenario.workload.producers) {
      for (let i = 1; i <= p.processes; i++) {
        const id = `p-${p.name}-${i}`;
        const forProducer = p.broker ? broker.resolveSettings(deepMerge(settings, p.broker)) : settings;
        const own = p.processBroker?.[i - 1];
        // Overrides are checked against the broker's schema like the scenario's own settings.
        const producerSettings = own ? broker.resolveSettings(deepMerge(forProducer, own)) : forProducer;
        producers.push(
          new WorkerHandle(
            { ...workerInit('producer', id), settings: producerSettings as typeof settings, producer: { name: p.name, index: i - 1, of: p.processes } },
            join(runDir, `${id}.log`),
            log,
            deployment.host,
          ),
        );
      }
    }
    for (const p of producers) mark('worker-started', { id: p.id, role: 'producer', pid: p.pid });
    await Promise.all(producers.map((p) => p.waitFor('ready', 60_000, 'producer start-up')));
    const startUs = nowMicros() + 300_000;
    record.startUs = startUs;
    record.measureStartUs = startUs + scenario.workload.warmupMs * 1000;
    runnerHistory.write({ type: 'mark', at: startUs, name: 'start' });
    runnerHistory.write({ type: 'mark', at: record.measureStartUs, name: 'measure' });
    const drivers = gateway ? [gateway.driver] : producers;
    for (const p of drivers) p.send({ type: 'start', startUs });
    owner?.begin(startUs);
    /** What publishes: the producers, or the order service's instances and relays (a restarted relay included). */
    const publishers = () => (gateway ? gateway.publishers() : producers);

    // 4. Faults.
    timeline = new FaultTimeline(scenario.faults, kinds, {
      runtime: opts.runtime,
      allowDestructive: opts.allowDestructive,
      deployment,
      admin,
      producers: () => publishers(),
      consumers: () => consumers,
      storeFile: record.storeFile,
      ...(gateway ? { gateway: { relays: gateway.relays, restartRelay: gateway.restartRelay } } : {}),
      ...(owner ? { owner: owner.control } : {}),
      restartConsumer: async (id) => {
        const idx = consumers.findIndex((c) => c.id === id);
        const fresh = startConsumer(id);
        if (idx >= 0) retired.push(consumers.splice(idx, 1, fresh)[0]);
        else consumers.push(fresh);
        await fresh.waitFor('ready', 60_000, 'consumer restart');
      },
      log,
    }, runnerHistory);
    timeline.schedule(record.measureStartUs);

    // 5. Produce until every producer has sent its plan, watching the workers.
    stage = 'produce';
    const plannedS = (scenario.workload.warmupMs + (scenario.workload.durationMs ?? 0)) / 1000;
    let lastSent = 0;
    let lastApplied = 0;
    let lastTick = Date.now();
    const tick = (phase: string) => {
      const producers = publishers();
      const sent = sum(producers, 'sent');
      const applied = sum([...consumers, ...retired], 'applied');
      const dt = Math.max(0.001, (Date.now() - lastTick) / 1000);
      progress.update({
        phase, elapsedS: (nowMicros() - startUs) / 1e6, totalS: plannedS, sentRate: (sent - lastSent) / dt,
        processedRate: (applied - lastApplied) / dt, backlog: Math.max(0, sum(producers, 'acked') - applied), errors: sum([...consumers, ...retired], 'errors'),
        stale: sum([...consumers, ...retired], 'stale'),
      });
      lastSent = sent;
      lastApplied = applied;
      lastTick = Date.now();
      const watched = [...producers, ...consumers, ...(gateway?.all() ?? [])];
      record.worstLoopLagMs = Math.max(record.worstLoopLagMs, ...watched.map((w) => w.stats.loopLagMs));
      for (const w of watched) {
        if (w.exited && w.exitCode !== 0 && !w.killedByFault) {
          throw new InfraError(`worker ${w.id} died (exit ${w.exitCode}); see ${w.logFile}`);
        }
      }
    };
    const cpuWatch = new CpuWatch();
    const settleUs = scenario.run.settleMs * 1000;
    const faultRecords = timeline.records;
    const giveUp = new GiveUpWatch({
      measureStartUs: record.measureStartUs,
      delayBoundMs: scenario.run.giveUpDelayMs,
      targetPerSecond: scenario.workload.rate.kind === 'fixed' ? scenario.workload.rate.perSecond : null,
      planEndUs: startUs + plannedS * 1e6,
      // Planned or actual, whichever is wider, plus the settle time.
      inFault: (t) =>
        faultRecords.some((r) => Math.min(r.plannedStartUs, r.startUs ?? Infinity) <= t && t <= Math.max(r.plannedEndUs, r.endUs ?? (r.startUs !== undefined ? Infinity : 0)) + settleUs),
    });
    while (!abort.signal.aborted && !drivers.every((p) => p.stats.finished || p.exited)) {
      await sleepUntilFinished(drivers, 500, abort.signal);
      tick('produce');
      cpuWatch.sample([...publishers(), ...consumers, ...(gateway ? [gateway.driver] : [])]);
      const reason = record.gaveUp ? null : giveUp.sample({ atUs: nowMicros(), sent: sum(publishers(), 'sent'), behindMs: Math.max(0, ...publishers().map((p) => p.stats.behindMs)) });
      if (reason) {
        record.gaveUp = { atMs: Math.round((nowMicros() - startUs) / 1000), reason };
        record.incomplete.push(reason);
        log(reason);
        for (const p of drivers) p.send({ type: 'stop' });
      }
    }
    // The service publishes what it accepted: wait (bounded) for its last sends and its outbox.
    const unsettled = gateway && !record.gaveUp ? await gateway.settle(abort.signal) : null;
    if (unsettled) record.incomplete.push(unsettled);
    record.cpu = cpuWatch.figures();
    mark('producers-finished');

    // 6. Let the fault windows close (not after giving up: undo them now), then drain.
    stage = 'faults';
    while (!record.gaveUp && !abort.signal.aborted && timeline.busyAfter(nowMicros())) {
      await sleep(100, abort.signal);
      tick('faults');
    }
    await timeline.stop();
    stage = 'drain';
    const all = () => [...consumers, ...retired];
    // After giving up, drain briefly: the verdict is unknown already; what is still queued is unseen.
    const drainFor = record.gaveUp ? { ...plan, capMs: Math.min(plan.capMs ?? Infinity, 5_000) } : plan;
    record.drain = await drain(
      {
        acked: () => sum(publishers(), 'acked'),
        applied: () => sum(all(), 'applied'),
        errors: () => sum(all(), 'errors'),
        inFlight: () => sum(all(), 'inFlight'),
        remaining: admin.remaining ? () => admin!.remaining!() : undefined,
      },
      drainFor,
      abort.signal,
      () => tick('drain'),
    );
    if (record.gaveUp && record.drain.endedBy === 'cap') record.drain = { ...record.drain, endedBy: 'gave-up', reason: `gave up early; ${record.drain.reason}`, capMs: plan.capMs };
    // A drain that hit its cap is not incomplete in itself: what the broker still holds is
    // unseen, and an expectation of lost 0 is then unknown (checker/expectations.ts).
    mark('drained', record.drain);
  } catch (err) {
    // Kept, not thrown: the partial history is still analysed; the verdict will be unknown.
    record.failure = err as Error;
    record.failedStage = stage;
    record.incomplete.push(`${stage}: ${(err as Error).message}`);
    // The stack goes to run.log only; the console gets the one line (CONVOY_DEBUG=1 for more).
    logStream.write(`${new Date().toISOString()} run failed at ${stage}: ${(err as Error).stack ?? (err as Error).message}\n`);
    opts.log?.(`run failed at ${stage}: ${debugDetail(err as Error)}`);
  } finally {
    clearTimeout(hardStop);
    progress.stop();
    record.endUs = nowMicros();
    await timeline?.stop().catch((e: Error) => log(`undoing faults: ${e.message}`));
    record.faults = timeline?.records ?? [];
    for (const f of timeline?.failures() ?? []) record.incomplete.push(`fault ${f.name}: ${f.error}`);
    // A broker or owner inside this process stood still whenever it did (runner-stall.ts).
    const stalls = runnerStalls.stop();
    if (deployment?.host || owner) record.incomplete.push(...unexercisedWindows(record.faults, stalls, record.endUs));
    await Promise.all([...producers, ...consumers, ...(gateway?.all() ?? [])].map((w) => w.stop(10_000)));
    // A restarted relay keeps its name: its earlier processes are counted as <id>.1, <id>.2, ...
    for (const p of gateway ? gateway.publishers() : producers) {
      let id = p.id;
      for (let n = 1; id in record.producerStats; n++) id = `${p.id}.${n}`;
      record.producerStats[id] = p.stats;
    }
    if (gateway) {
      const services = Object.fromEntries(gateway.all().filter((w) => w !== gateway!.driver).map((w) => [w.id, w.stats]));
      record.gateway = { driver: gateway.driver.stats, services, storeFile: gateway.storeFile };
    }
    for (const c of [...retired, ...consumers]) record.consumerStats[c.id] = c.stats;
    if (owner) {
      runnerHistory.write({ type: 'mark', at: nowMicros(), name: 'owner-served', detail: { byStatus: owner.served } });
      await owner.close().catch((e: Error) => log(`stopping the owner: ${e.message}`));
    }
    // What the broker still holds, now that every worker stopped and committed, and before the
    // destinations go: the checker's evidence for lost against unseen.
    if (record.startUs > 0) runnerHistory.write(await askRemaining(admin, log));
    if (admin) {
      if (!opts.keep) await admin.deleteDestinations().catch((e: Error) => log(`deleting destinations: ${e.message}`));
      await admin.close().catch(() => {});
    }
    await deployment?.stop().catch((e: Error) => log(`stopping brokers: ${e.message}`));
    undoDeploy();
    offInterrupt();
    runnerHistory.close();
    await mergeHistories(histDir, record.historyFile);
    logStream.end();
  }
  return record;
}

function sum(ws: WorkerHandle[], field: keyof WorkerStats): number {
  return ws.reduce((n, w) => n + Number(w.stats[field]), 0);
}

/** BrokerAdmin.remaining as a history event; a broker that cannot be asked says so. */
async function askRemaining(admin: BrokerAdmin | undefined, log: (line: string) => void): Promise<RemainingEvent> {
  const at = nowMicros();
  if (!admin) return { type: 'remaining', at, known: false, total: null, reason: 'no broker admin (the run failed before its destinations existed)' };
  if (!admin.remaining) return { type: 'remaining', at, known: false, total: null, reason: 'this broker cannot report what it still holds' };
  let timer: NodeJS.Timeout | undefined;
  try {
    const r = await Promise.race([
      admin.remaining(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer within 15 s')), 15_000);
      }),
    ]);
    log(`the broker still holds ${r.known ? r.total : 'an unknown number of'} message(s) for the run`);
    return { type: 'remaining', at, known: r.known, total: r.known ? r.total : null, lanes: r.lanes, detail: r.detail, reason: r.reason };
  } catch (err) {
    log(`asking the broker what it still holds: ${(err as Error).message}`);
    return { type: 'remaining', at, known: false, total: null, reason: `the broker could not be asked: ${(err as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
}

/** Concatenates the workers' history files into one (the format allows any line order). */
async function mergeHistories(histDir: string, target: string): Promise<void> {
  const out = createWriteStream(target);
  // The header first: the format and its version (harness/history/schema.ts).
  out.write(JSON.stringify(historyHeader()) + '\n');
  for (const f of readdirSync(histDir).filter((f) => f.endsWith('.jsonl')).sort()) {
    for await (const chunk of createReadStream(join(histDir, f))) {
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    }
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

export type { ProducerSpec };
