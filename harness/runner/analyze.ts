import { costsFromHistory } from '../consumer/strategies/costs.ts';
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, totalmem, platform, release } from 'node:os';
import { checkFile } from '../checker/readFile.ts';
import { EventClocks } from '../history/clock-offsets.ts';
import { countHolds, evaluateExpectations, parseExpectations, type Expected } from '../checker/expectations.ts';
import { buildResult, checkSection, redactSecrets } from '../checker/result.ts';
import type { ResultShape } from '../checker/result-schema.ts';
import type { Window } from '../metrics/collector.ts';
import { MessagePlan } from '../workload/schedule.ts';
import { plannedSendingMs } from '../scenario/suite-rules.ts';
import { measureHistory } from './measure.ts';
import { emptyCounts, scoreStrategies, type StrategyScore } from '../consumer/replay.ts';
import { compareVersions, readState } from '../service/state.ts';
import type { VersionedState } from '../workload/entity.ts';

import { strategyOptions } from '../consumer/strategies/registry.ts';
import { laneMoves } from '../metrics/lane-moves.ts';
import { groupOwnership } from '../metrics/group-ownership.ts';
import { keyBacklog } from '../metrics/oldest-unprocessed.ts';
import { hotKeyFigures } from '../metrics/hot-key.ts';
import { redeliveries } from '../metrics/redeliveries.ts';
import { holVictims } from '../metrics/hol-victims.ts';
import { resendFigures } from '../metrics/resends.ts';
import { DUPLICATE_VERSIONS_EXPECTATION, FINAL_STATE_EXPECTATION } from '../spec/sections.ts';
import type { ExpectationSpec } from '../spec/types.ts';
import type { ScenarioSource } from '../scenario/source.ts';
import type { ExpectationResult, Verdict } from '../checker/expectations.ts';
import type { RunRecord } from './record.ts';
import { writeRunRecord } from './record-file.ts';
import { BROKERS_DIR, loadBroker } from '../broker/registry.ts';
import { deepMerge } from '../scenario/deep-merge.ts';
import type { BrokerSettings } from '../broker/contract.ts';
import { gatewayFigures, judgeDuplicateVersions } from '../gateway/analysis.ts';
import { evaluateThreshold, isThresholdName, parseThreshold, thresholdReason, type ThresholdFigures } from '../checker/thresholds.ts';

/** The name a consumer under test's final state is scored under (the report's and wrong-state's). */
const SERVICE_SCORE = 'service';

/** Beyond these the harness did not keep its own schedule: the verdict is `unknown`. */
const MAX_PUBLISH_DELAY_P99_US = 1_000_000;
const MAX_PRODUCER_LOOP_LAG_MS = 1_000;
const MIN_SENT_SHARE = 0.99;
/** A fixed-rate run that reached less than this share of its target rate did not keep it. */
const MIN_RATE_SHARE = 0.9;
/** A producer process using this share of a core on average (over at least MIN_CPU_SAMPLES half-seconds) is saturated. */
const MAX_PRODUCER_CPU_PERCENT = 95;
const MIN_CPU_SAMPLES = 4;
/** A host this busy (all CPUs, on average while sending) cannot vouch for a latency or rate figure. */
const MAX_HOST_CPU_PERCENT = 95;

/** A run's result.json: the shape from the result's one source (harness/checker/result-schema.ts). */
export type Result = ResultShape & { runId: string };

/** The installed versions of the broker's client packages (its module names them). */
/** The installed version of each package of the broker (its folder's node_modules first, then the root's). */
function clientVersions(kind: string, packages: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of packages) {
    const file = [join(BROKERS_DIR, kind, 'node_modules', name, 'package.json'), join(BROKERS_DIR, '..', 'node_modules', name, 'package.json')].find((f) => existsSync(f));
    if (file) out[name] = (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return out;
}

/**
 * The npm clients' versions, and those of clients in processes of their own that the run's
 * settings ran: the scenario's, and each producer's and producer process's own (a producer
 * process may run another client, e.g. the Java client beside librdkafka).
 */
async function runClientVersions(scenario: RunRecord['scenario']): Promise<Record<string, string>> {
  const settings = scenario.broker;
  const broker = await loadBroker(settings.kind);
  let processClients: Record<string, string> = {};
  try {
    const all: BrokerSettings[] = [settings];
    for (const p of scenario.workload.producers) {
      const own = p.broker ? broker.resolveSettings(deepMerge(settings, p.broker)) : settings;
      all.push(own, ...(p.processBroker ?? []).map((o) => broker.resolveSettings(deepMerge(own, o))));
    }
    for (const s of all) Object.assign(processClients, broker.processClientVersions?.(s) ?? {});
  } catch {
    // Settings recorded by an older convoy that this one no longer resolves: no process clients to name.
  }
  return { ...clientVersions(settings.kind, broker.clients), ...processClients };
}

/** The broker's and clients' versions, and the client the scenario's settings chose. */
async function runVersions(record: RunRecord, scenario: RunRecord['scenario']): Promise<{ brokers: Record<string, string>; clients: Record<string, string>; client?: { name: string; version: string }; cluster?: Record<string, unknown> }> {
  const clients = await runClientVersions(scenario);
  const broker = await loadBroker(scenario.broker.kind);
  let name: string | undefined;
  try {
    name = broker.clientInUse?.(scenario.broker) ?? broker.clients[0];
  } catch {
    name = broker.clients[0];
  }
  const version = name === undefined ? undefined : clients[name];
  const cluster = record.deployment?.cluster;
  return { brokers: record.deployment?.versions ?? {}, clients, ...(name && version ? { client: { name, version } } : {}), ...(cluster ? { cluster } : {}) };
}

/**
 * Checks a finished run from its files: the ordering checker over the merged history, the
 * latency and throughput figures, the final state per strategy, the expectations and the
 * verdict. Writes results/<run-id>/result.json and record.json (unless `write` is false: a
 * run checked again) and returns the result. `source`: the scenario file's text and its
 * parents', recorded beside the resolved scenario.
 */
export async function analyzeRun(record: RunRecord, extra: { source?: ScenarioSource; write?: boolean; correctClocks?: boolean } = {}): Promise<Result> {
  const { scenario } = record;
  const write = extra.write ?? true;
  // The record first: a run folder can be checked again (`convoy check <run folder>`).
  if (write) writeRunRecord(record);
  const incomplete = [...record.incomplete];
  const outcome = await checkFile(record.historyFile, { lenient: true, settleMs: scenario.run.settleMs, correctClocks: extra.correctClocks });
  const windows: Window[] = record.faults
    .filter((f) => f.startUs !== undefined)
    .map((f) => ({ name: f.name, kind: f.kind, startUs: f.startUs!, endUs: f.endUs ?? record.endUs }));
  const growth = record.faults.filter((f) => f.kind === 'add-partitions' && f.startUs !== undefined);
  // Times other hosts stamped, on this one's clock; end-to-end latency between hosts is known to within their uncertainties.
  const clocks = outcome.clockOffsets ? new EventClocks(outcome.clockOffsets, Object.keys(record.producerStats)) : null;
  const m = await measureHistory(record.historyFile, scenario, record.measureStartUs, windows, { keyWrites: growth.length > 0, clocks });
  if (clocks) {
    m.latency.clockUncertaintyUs = { endToEnd: clocks.endToEndUncertainty(Object.keys(record.consumerStats)), ...(clocks.producersSplit ? { producersOnSeveralHosts: true } : {}) };
  }
  const refreshMarks = m.marks.filter((k) => k.name === 'producer-metadata-refreshed').map((k) => k.at);
  const refreshStartMarks = m.marks.filter((k) => k.name === 'producer-metadata-refresh').map((k) => k.at);
  // Who owned which lane when: the consumers' rebalance callbacks, and the faults that ended a consumer.
  const group = groupOwnership(
    [...m.rebalanceEvents, ...record.faults.filter((f) => f.startUs !== undefined).map((f) => ({ type: 'fault', phase: 'start', name: f.name, kind: f.kind, at: f.startUs!, evidence: f.evidence }))],
    { fromUs: record.measureStartUs, endUs: m.lastSendUs },
  );
  const laneChanges = growth.map((f) => laneMoves({ name: f.name, startUs: f.startUs!, evidence: f.evidence }, m.keyWrites, refreshMarks, refreshStartMarks));

  const seriesLen = ((m.series as { sent: number[] }).sent ?? []).length;
  const perKey = await keyBacklog(record.historyFile, m.topKeys, record.measureStartUs, 1_000_000, seriesLen);
  const oldest = perKey.oldestMs;
  const hot = m.topKeys[0];
  const sendingS = (m.lastSendUs - record.measureStartUs) / 1e6;
  const hotKey = hot === undefined ? null : hotKeyFigures(hot, perKey.backlog[hot]!, oldest[hot]!, perKey.written[hot]!, sendingS);
  const unreachable = new Set<string>();
  for (const o of outcome.occurrences.list()) if ((o.type === 'lost' || o.type === 'unseen' || o.type === 'abandoned') && o.key !== null) unreachable.add(o.key);
  // Order-service runs: the service's store at the end is the truth of the final state.
  const gateway = scenario.workload.gateway ? await gatewayFigures(record, m.marks, incomplete) : null;
  // A consumer under test keeps its own state: convoy's strategies never ran (their store is
  // empty); the service's own state, when it says how to ask, is scored by version.
  const finalState = scenario.consumers.service ? serviceScore(record.runDir, gateway?.truth ?? m.truth, unreachable) : await scoreStrategies({
    entity: scenario.workload.entity,
    live: scenario.consumers.strategy,
    storeFile: record.storeFile,
    truth: gateway?.truth ?? m.truth,
    unreachable,
    applies: m.applies,
    liveEffects: m.liveEffects,
    liveCosts: costsFromHistory(m.marks, m.releasedHeld, record.startUs, record.endUs),
  });

  // Did the harness keep its schedule? (Publish delay during a fault is the fault's doing.)
  const plan = new MessagePlan({ seed: scenario.seed, workload: scenario.workload, poison: scenario.consumers.poison });
  const sentTotal = Object.values(record.producerStats).reduce((n, s) => n + s.sent, 0);
  const plannedTotal = Number.isFinite(plan.total) ? plan.total : sentTotal;
  const quietDelay = (m.latency as { publishDelayOutsideFaults: { p99: number; count: number } }).publishDelayOutsideFaults;
  const producerLag = Math.max(0, ...Object.values(record.producerStats).map((s) => s.loopLagMs));
  // A run that stopped before its producers started has one reason: the failure itself.
  const startedSending = record.startUs > 0;
  if (!record.interrupted && startedSending && sentTotal < plannedTotal * MIN_SENT_SHARE) incomplete.push(`the producers sent ${sentTotal} of ${plannedTotal} planned messages`);
  if (scenario.workload.rate.kind !== 'unlimited' && quietDelay.count > 0 && quietDelay.p99 > MAX_PUBLISH_DELAY_P99_US) {
    incomplete.push(`the harness could not keep the target rate: publish delay p99 ${(quietDelay.p99 / 1000).toFixed(0)} ms outside fault windows`);
  }
  // Over the time the sends really took: a producer that fell behind sent its plan late. The
  // plan's own measured length, not durationMs: `messages` can end the plan sooner.
  const plannedS = Math.max(0, (plannedSendingMs(scenario) ?? 0) - scenario.workload.warmupMs) / 1000;
  const measuredS = Math.max(0.001, plannedS, (m.lastSendUs - record.measureStartUs) / 1e6);
  const target = scenario.workload.rate.kind === 'fixed' ? scenario.workload.rate.perSecond : null;
  const achievedRate = Math.round(m.sent / measuredS);
  if (target && m.sent > 0 && achievedRate < target * MIN_RATE_SHARE) {
    incomplete.push(`the harness could not keep the target rate: reached ${achievedRate}/s of ${target}/s`);
  }
  if (producerLag > MAX_PRODUCER_LOOP_LAG_MS) incomplete.push(`a producer's event loop lagged ${producerLag} ms (CPU saturated?)`);
  // A producer that used a whole core while sending could not take its timestamps on time.
  if (scenario.workload.rate.kind !== 'unlimited') {
    for (const [id, c] of Object.entries(record.cpu?.workers ?? {})) {
      if (id in record.producerStats && c.samples >= MIN_CPU_SAMPLES && c.meanPercent >= MAX_PRODUCER_CPU_PERCENT) {
        incomplete.push(`producer ${id} was CPU-bound: ${c.meanPercent}% of a core while sending`);
      }
    }
  }
  if (!record.drain.drained && record.drain.reason === 'interrupted') incomplete.push('the drain was interrupted');

  const { [FINAL_STATE_EXPECTATION]: stateSpec, [DUPLICATE_VERSIONS_EXPECTATION]: duplicateSpec, ...rest } = scenario.expect;
  const anomalySpecs = Object.fromEntries(Object.entries(rest).filter(([k]) => !isThresholdName(k)));
  const { expectations, verdict } = evaluateExpectations(
    { anomalies: outcome.anomalies, occurrences: outcome.occurrences, faults: outcome.faults, input: outcome.input, remaining: outcome.remaining, uncertain: outcome.uncertain },
    parseExpectations(anomalySpecs),
    { incomplete },
  );
  judgeFinalState(stateSpec, finalState, scenario.consumers.service ? SERVICE_SCORE : strategyOptions(scenario.consumers.strategy).kind, expectations, verdict);
  judgeDuplicateVersions(duplicateSpec, gateway?.section.duplicateVersions ?? null, expectations, verdict);
  const host = record.cpu?.host;
  const saturated = host && host.samples >= MIN_CPU_SAMPLES && host.meanPercent >= MAX_HOST_CPU_PERCENT
    ? `the host's CPUs were ${Math.round(host.meanPercent)}% busy while the producers sent, so the figure measures the machine, not the broker` : null;
  judgeThresholds(rest, { latency: m.latency as ThresholdFigures['latency'], rates: m.rates }, expectations, verdict, saturated);
  // A run that did not complete cannot fail an expectation either: an interrupted run "loses"
  // what it never waited for. Its findings stay in the reasons; the verdict is unknown.
  if (incomplete.length > 0) verdict.status = 'unknown';

  const occurrences = outcome.occurrences.list();
  const result = buildResult({
    run: {
      runId: record.runId,
      seed: scenario.seed,
      scenario: scenario as unknown as Record<string, unknown>,
      versions: await runVersions(record, scenario),
      started: record.startUs ? new Date(record.startUs / 1000).toISOString() : null,
      finished: new Date(record.endUs / 1000).toISOString(),
    },
    verdict,
    anomalies: outcome.anomalies,
    expectations,
    check: checkSection(outcome, 'history.jsonl'),
    sections: {
      // The scenario file and what it extends (the resolved scenario is `scenario`).
      ...(extra.source ? { source: extra.source as unknown as Record<string, unknown> } : {}),
      environment: {
        runtime: record.deployment?.runtime ?? null,
        broker: record.deployment?.broker ?? scenario.broker.kind,
        emulator: record.deployment?.emulator ?? null,
        endpoint: redactSecrets(record.deployment?.endpoint ?? null),
        host: { platform: platform(), release: release(), cpus: cpus().length, memoryBytes: totalmem() },
      },
      workload: {
        plannedMessages: plannedTotal,
        sent: sentTotal,
        sentMeasured: m.sent,
        ackedMeasured: m.acked,
        targetRate: target,
        achievedRate,
        rates: m.rates,
        skew: m.skew,
        finalState,
        laneChanges,
        // Split keys: order per entity, across its sub-keys.
        ...(m.entityOrder ? { entityOrder: m.entityOrder } : {}),
        // The producers' own re-sends (workload.producers[].resend) and how they were answered.
        ...(scenario.workload.producers.some((p) => p.resend) ? { resends: await resendFigures(record.historyFile) } : {}),
      },
      // How the consumers handled the load: their mode and strategy, what it cost, the hottest key.
      consumers: {
        mode: scenario.consumers.concurrency.mode,
        strategy: strategyOptions(scenario.consumers.strategy).kind,
        costs: m.costs,
        hotKey,
        ...(group ? { group } : {}),
        // Every run with poison messages: who waited behind them.
        // The broker's delivery counts, where the client reports them.
        ...(await redeliveries(record.historyFile).then((r) => (r ? { redeliveries: r } : {}))),
        ...(scenario.consumers.poison ? { holVictims: { policy: scenario.consumers.poison.policy, ...(await holVictims(record.historyFile)) } } : {}),
      },
      ...(gateway ? { gateway: gateway.section } : {}),
      latency: m.latency,
      timeline: {
        startUs: record.startUs,
        measureStartUs: record.measureStartUs,
        endUs: record.endUs,
        series: { ...m.series, oldestUnprocessedMs: oldest, keyBacklog: perKey.backlog },
        faults: record.faults,
        settleMs: outcome.settleMs,
        anomalies: occurrences.slice(0, 5000).map((o) => ({ type: o.type, key: o.key, at: o.time })),
        anomaliesTotal: occurrences.length,
        rebalances: m.rebalances,
        marks: m.marks,
      },
      harness: {
        failure: record.failure ? { stage: record.failedStage ?? null, reason: record.failure.message, ...failureDetail(record.failure) } : null,
        incomplete,
        drain: record.drain,
        gaveUp: record.gaveUp ?? null,
        worstLoopLagMs: record.worstLoopLagMs,
        cpu: record.cpu ?? null,
        ...(record.agents ? { agents: agentShares(record, m.lastSendUs) } : {}),
        producers: record.producerStats,
        consumers: record.consumerStats,
      },
    },
  }) as Result;
  if (write) writeFileSync(join(record.runDir, 'result.json'), JSON.stringify(result, null, 2));
  return result;
}

/**
 * Each agent's share of the run: what its workers sent and handled, at what rate and CPU. The
 * rate is over the sending (the schedule's start to the last send), as the run's own rate is:
 * over the whole run its drain would count as time the producers were idle.
 */
export function agentShares(record: Pick<RunRecord, 'agents' | 'startUs' | 'endUs' | 'producerStats' | 'consumerStats' | 'cpu'>, lastSendUs: number) {
  const seconds = Math.max(1e-6, ((lastSendUs > record.startUs ? lastSendUs : record.endUs) - record.startUs) / 1e6);
  return (record.agents ?? []).map((a) => {
    const stats = a.workers.map((w) => record.producerStats[w] ?? record.consumerStats[w]).filter(Boolean);
    const acked = stats.reduce((n, s) => n + s!.acked, 0);
    return {
      ...a,
      acked,
      applied: stats.reduce((n, s) => n + s!.applied, 0),
      ackedPerSecond: Math.round(acked / seconds),
      cpuMeanPercent: a.workers.reduce((n, w) => n + (record.cpu?.workers[w]?.meanPercent ?? 0), 0),
    };
  });
}

/** The final state of a consumer under test, under the name `wrong-state` judges: the service's, by version. */
function serviceScore(runDir: string, truth: Map<string, VersionedState>, unreachable: Set<string>): Record<string, StrategyScore> | null {
  const state = readState(runDir);
  if (!state || 'error' in state) return null;
  const c = compareVersions(state.versions, truth, unreachable);
  const version = (v: number | null) => (v === null ? null : { version: v, state: {} });
  return {
    [SERVICE_SCORE]: {
      strategy: SERVICE_SCORE, primary: true, mode: 'live', effects: emptyCounts(),
      keys: c.keys, right: c.right, wrong: c.wrong, unreachable: c.unreachable, wrongFields: c.wrong ? { version: c.wrong } : {},
      wrongKeys: c.examples.map((w) => ({ key: w.key, expected: version(w.expected), actual: version(w.actual), fields: ['version'] })),
    },
  };
}

/**
 * `wrong-state`: keys whose final state differs from the truth under the consumers' strategy,
 * or the one the expectation names (keys with a lost, unseen or abandoned message left out).
 * Judged like an anomaly count.
 */
function judgeFinalState(
  spec: ExpectationSpec | ExpectationSpec[] | undefined,
  scores: Record<string, StrategyScore> | null,
  live: string,
  expectations: ExpectationResult[],
  verdict: Verdict,
): void {
  for (const one of spec === undefined ? [] : Array.isArray(spec) ? spec : [spec]) {
    const expected = String(typeof one === 'object' ? one.expect : one) as Expected;
    const strategy = (typeof one === 'object' && one.strategy) || live;
    const wrong = scores?.[strategy]?.wrong ?? null;
    const held = expected === 'any' ? true : wrong === null ? null : countHolds(expected, wrong);
    (expectations as unknown as Record<string, unknown>[]).push({ type: FINAL_STATE_EXPECTATION, expected, window: null, found: wrong, keys: wrong, held, source: 'given', strategy });
    if (held === false) {
      verdict.reasons.unshift(`${FINAL_STATE_EXPECTATION} (${strategy}): expected ${expected}, found ${wrong} keys`);
      verdict.status = 'fail';
    } else if (held === null) {
      verdict.reasons.push(`${FINAL_STATE_EXPECTATION} (${strategy}): no final state was recorded`);
      if (verdict.status === 'pass') verdict.status = 'unknown';
    }
  }
}

/**
 * Thresholds on latency and throughput (checker/thresholds.ts), judged like the counts. On a
 * saturated host a threshold that did not hold is undecided: the harness starved its own
 * consumers, and the broker is not to blame for that.
 */
function judgeThresholds(specs: Record<string, unknown>, figures: ThresholdFigures, expectations: ExpectationResult[], verdict: Verdict, saturated: string | null): void {
  for (const [name, spec] of Object.entries(specs)) {
    if (!isThresholdName(name)) continue;
    (Array.isArray(spec) ? spec : [spec]).forEach((one, i) => {
      const r = evaluateThreshold(parseThreshold(`expect.${name}${Array.isArray(spec) ? `[${i}]` : ''}`, name, one), figures);
      if (r.held === false && saturated) {
        (expectations as unknown as Record<string, unknown>[]).push({ ...r, held: null, note: `not judged: ${saturated}` } as unknown as Record<string, unknown>);
        verdict.reasons.push(`${thresholdReason(r)}: not judged: ${saturated}`);
        if (verdict.status === 'pass') verdict.status = 'unknown';
        return;
      }
      (expectations as unknown as Record<string, unknown>[]).push(r as unknown as Record<string, unknown>);
      if (r.held === false) {
        verdict.reasons.unshift(thresholdReason(r));
        verdict.status = 'fail';
      } else if (r.held === null) {
        verdict.reasons.push(thresholdReason(r));
        if (verdict.status === 'pass') verdict.status = 'unknown';
      }
    });
  }
}

/** The lines that say more about a failure (a client process's last log lines), when it has any. */
function failureDetail(e: Error): { detail?: string[] } {
  const detail = (e as { detail?: unknown }).detail;
  return Array.isArray(detail) && detail.length > 0 ? { detail: detail.map(String) } : {};
}
