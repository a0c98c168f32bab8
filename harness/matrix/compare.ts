/**
 * The comparison of a matrix's cells (matrix.json, schema results/schema/matrix.v1.json), from
 * the finished runs' result.json files only, so it can be rebuilt offline. Per cell: how often
 * each anomaly type appeared (with a Wilson 95% interval), anomalies per 1,000 messages sent
 * (median, range), achieved rate, publish and end-to-end latency from the runs' HDR histograms
 * merged (never averaged percentiles), harness CPU, wrong final states per strategy, and the
 * cell's expectation results. `unknown` runs are counted and named, never averaged in.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANOMALY_TYPES } from '../checker/types.ts';
import { EXIT, type ExitCode } from '../errors.ts';
import { CURVE_PERCENTILES, decode, newHistogram, summarize, valueAt, type Histogram } from '../metrics/histogram.ts';
import { FINAL_STATE_EXPECTATION } from '../spec/sections.ts';
import { asReportResult, type ReportResult } from '../report/view.ts';
import { judgeExpectations, type ExpectationOutcome } from './expect.ts';
import { isThresholdName } from '../checker/thresholds.ts';
import type { DoneRun } from './run-matrix.ts';
import type { MatrixPlan, PlannedCell } from './plan.ts';
import { spread, wilson, type Spread } from './stats.ts';
import type { GroupOwnership } from '../metrics/group-ownership.ts';

export const MATRIX_SCHEMA = 'convoy.matrix.v1';
const LATENCIES = ['publish', 'endToEnd'] as const;

export interface AnomalyShare {
  /** Known runs in which it appeared at least once. */
  appeared: number;
  of: number;
  share: number | null;
  /** Wilson 95% interval of the share. */
  interval: [number, number];
  per1000: Spread | null;
}

export interface MergedLatency {
  runs: number;
  count: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  curve: { percentile: number; us: number }[];
}

export interface CellRun {
  slot: number;
  repeat: number;
  seed: number;
  runId: string;
  dir: string;
  verdict: string;
  reasons: string[];
}

export interface CellComparison {
  id: string;
  label: string;
  values: Record<string, unknown>;
  runs: CellRun[];
  planned: number;
  known: number;
  unknown: number;
  pass: number;
  fail: number;
  /** Set when no run of the cell is known: its figures are all null. */
  allUnknown: boolean;
  anomalies: Record<string, AnomalyShare>;
  achievedRate: Spread | null;
  latency: Record<(typeof LATENCIES)[number], MergedLatency | null>;
  cpu: { hostPercent: Spread | null; harnessPercent: Spread | null };
  /** Strategy -> keys left in a wrong final state per run, and in how many runs any were. */
  wrongState: Record<string, { perRun: Spread | null; runsWrong: number; of: number; primary: boolean }>;
  expectations: { label: string; held: number; of: number }[];
  /** Consumer groups (the runs' consumers.group): handovers, and lane time without a live owner; null when no run has them. */
  group: GroupComparison | null;
  /** Deliveries per consumer process (c1, c2, ...), per run: who did the work (a classic group's idle members show 0). */
  delivered: Record<string, Spread | null>;
}

export interface GroupComparison {
  handovers: Spread | null;
  /** Per fault that ended a member ("kill-c1 (c1)"): of the lanes it held, how many another member got before it was back. */
  takenWhileAway: Record<string, Spread | null>;
  unownedMs: Spread | null;
  longestUnownedMs: Spread | null;
}

export interface MatrixComparison {
  schema: typeof MATRIX_SCHEMA;
  name: string;
  description: string | null;
  seed: number;
  repeats: number;
  axes: { name: string; values: unknown[] }[];
  method: { interval: string; latency: string; unknown: string };
  complete: boolean;
  runsPlanned: number;
  runsDone: number;
  cells: CellComparison[];
  expectations: ExpectationOutcome[];
  verdict: { status: 'pass' | 'fail' | 'unknown'; reasons: string[] };
}

const METHOD = {
  interval: 'Wilson score interval, 95%, over the cell\'s known runs',
  latency: 'HDR histograms of the cell\'s known runs merged, then read (not averaged percentiles)',
  unknown: 'runs whose verdict is unknown are counted and listed, never included in a figure',
};

interface Loaded {
  done: DoneRun;
  result: ReportResult;
}

function loadResult(dir: string, d: DoneRun): ReportResult {
  const file = join(dir, d.dir, 'result.json');
  if (!existsSync(file)) return { runId: d.runId, verdict: { status: 'unknown', reasons: ['result.json is missing'] } } as unknown as ReportResult;
  return asReportResult(JSON.parse(readFileSync(file, 'utf8')), file);
}

function mergeLatency(runs: ReportResult[], which: string): MergedLatency | null {
  const h: Histogram = newHistogram();
  let used = 0;
  for (const r of runs) {
    const enc = r.latency?.encoded?.[which];
    if (!enc) continue;
    const one = decode(enc);
    h.add(one);
    one.destroy();
    used++;
  }
  if (used === 0 || h.totalCount === 0) {
    h.destroy();
    return null;
  }
  const s = summarize(h);
  const curve = CURVE_PERCENTILES.map((p) => ({ percentile: p, us: valueAt(h, p) }));
  h.destroy();
  return { runs: used, count: s.count, p50: s.p50, p90: s.p90, p99: s.p99, p999: s.p999, max: s.max, curve };
}

function sentOf(r: ReportResult): number {
  return r.workload?.sent ?? 0;
}

/** Each consumer process's deliveries in a run (its worker's phase counts). */
function deliveredBy(r: ReportResult): Record<string, number> {
  const consumers = ((r.harness as { consumers?: unknown } | undefined)?.consumers ?? {}) as Record<string, { phases?: { deliveries?: number } }>;
  return Object.fromEntries(Object.entries(consumers).map(([id, c]) => [id, c.phases?.deliveries ?? 0]));
}

function compareDelivered(known: ReportResult[]): Record<string, Spread | null> {
  const per = known.map(deliveredBy);
  const ids = [...new Set(per.flatMap((d) => Object.keys(d)))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return Object.fromEntries(ids.map((id) => [id, spread(per.map((d) => d[id] ?? 0))]));
}

function harnessCpu(r: ReportResult): number | undefined {
  const workers = (r.harness?.cpu as { workers?: Record<string, { meanPercent: number }> } | null | undefined)?.workers;
  return workers ? Object.values(workers).reduce((n, w) => n + w.meanPercent, 0) : undefined;
}

function expectationLabel(e: { type: string; expected: string; window: { relation: string; fault: string } | null }): string {
  return `${e.type}${e.window ? ` ${e.window.relation} ${e.window.fault}` : ''} ${e.expected}`;
}

function compareGroup(known: ReportResult[]): GroupComparison | null {
  const groups = known.map((r) => (r.consumers as { group?: GroupOwnership } | undefined)?.group).filter((g): g is GroupOwnership => g !== undefined);
  if (groups.length === 0) return null;
  const departure = (d: { fault: string; consumer: string }) => `${d.fault} (${d.consumer})`;
  const departures = [...new Set(groups.flatMap((g) => (g.departures ?? []).map(departure)))];
  return {
    handovers: spread(groups.map((g) => g.handovers)),
    takenWhileAway: Object.fromEntries(departures.map((name) => [name, spread(groups.map((g) => (g.departures ?? []).filter((d) => departure(d) === name).reduce((n, d) => n + d.takenByOthers, 0)))])),
    unownedMs: spread(groups.map((g) => g.unownedMs)),
    longestUnownedMs: spread(groups.map((g) => g.longestUnownedMs)),
  };
}

function compareCell(cell: PlannedCell, plan: MatrixPlan, loaded: Loaded[]): CellComparison {
  const known = loaded.filter((l) => l.result.verdict.status !== 'unknown').map((l) => l.result);
  const anomalies: Record<string, AnomalyShare> = {};
  for (const type of ANOMALY_TYPES) {
    const counts = known.map((r) => r.anomalies?.[type]?.count ?? 0);
    const appeared = counts.filter((c) => c > 0).length;
    anomalies[type] = {
      appeared, of: known.length, share: known.length ? appeared / known.length : null, interval: wilson(appeared, known.length),
      per1000: spread(known.filter((r) => sentOf(r) > 0).map((r) => ((r.anomalies?.[type]?.count ?? 0) * 1000) / sentOf(r))),
    };
  }
  const wrongState: CellComparison['wrongState'] = {};
  for (const r of known) {
    for (const [strategy, s] of Object.entries(r.workload?.finalState ?? {})) {
      const w = wrongState[strategy] ?? { perRun: null, runsWrong: 0, of: 0, primary: s.primary };
      w.of++;
      if (Number(s.wrong ?? 0) > 0) w.runsWrong++;
      wrongState[strategy] = w;
    }
  }
  for (const strategy of Object.keys(wrongState)) {
    wrongState[strategy].perRun = spread(known.map((r) => Number(r.workload?.finalState?.[strategy]?.wrong ?? NaN)));
  }
  const expectations = new Map<string, { held: number; of: number }>();
  for (const r of known) {
    for (const e of r.expectations ?? []) {
      if (e.source === 'default' && e.expected === 'any') continue;
      const label = expectationLabel(e as unknown as { type: string; expected: string; window: { relation: string; fault: string } | null });
      const x = expectations.get(label) ?? { held: 0, of: 0 };
      x.of++;
      if (e.held === true) x.held++;
      expectations.set(label, x);
    }
  }
  return {
    id: cell.id, label: cell.label, values: cell.values,
    runs: loaded.map(({ done, result }) => ({
      slot: done.slot, repeat: done.repeat, seed: done.seed, runId: done.runId, dir: done.dir, verdict: result.verdict.status, reasons: result.verdict.reasons,
    })),
    planned: plan.runs.filter((r) => r.cell === cell.id).length,
    known: known.length,
    unknown: loaded.length - known.length,
    pass: known.filter((r) => r.verdict.status === 'pass').length,
    fail: known.filter((r) => r.verdict.status === 'fail').length,
    allUnknown: known.length === 0,
    anomalies,
    achievedRate: spread(known.map((r) => r.workload?.achievedRate ?? NaN)),
    latency: { publish: mergeLatency(known, 'publish'), endToEnd: mergeLatency(known, 'endToEnd') },
    cpu: {
      hostPercent: spread(known.map((r) => (r.harness?.cpu as { host?: { meanPercent: number } } | null | undefined)?.host?.meanPercent ?? NaN)),
      harnessPercent: spread(known.map((r) => harnessCpu(r) ?? NaN)),
    },
    wrongState,
    expectations: [...expectations].map(([label, x]) => ({ label, ...x })),
    group: compareGroup(known),
    delivered: compareDelivered(known),
  };
}

/** Did the anomaly (for wrong-state, a wrong final state under the cell's strategy; for a threshold, a breach) appear in a run? */
function appearedIn(r: ReportResult, anomaly: string): boolean {
  if (anomaly === FINAL_STATE_EXPECTATION) return Object.values(r.workload?.finalState ?? {}).some((s) => s.primary && Number(s.wrong ?? 0) > 0);
  // A threshold "appears" in a run that breached it.
  if (isThresholdName(anomaly)) return (r.expectations ?? []).some((e) => e.type === anomaly && e.held === false);
  return (r.anomalies?.[anomaly as keyof NonNullable<ReportResult['anomalies']>]?.count ?? 0) > 0;
}

/** The comparison of every cell over the finished runs (cells and runs in plan order). */
export function compareMatrix(plan: MatrixPlan, dir: string, done: DoneRun[]): MatrixComparison {
  const bySlot = [...done].sort((a, b) => a.slot - b.slot);
  const loaded = new Map<string, Loaded[]>(plan.cells.map((c) => [c.id, []]));
  for (const d of bySlot) loaded.get(d.cell)?.push({ done: d, result: loadResult(dir, d) });
  const cells = plan.cells.map((c) => compareCell(c, plan, loaded.get(c.id)!));
  const expectations = judgeExpectations(plan.expect, plan.cells, {
    appeared: (cell, anomaly) => loaded.get(cell)!.filter((l) => l.result.verdict.status !== 'unknown').map((l) => appearedIn(l.result, anomaly)),
    unknownRuns: (cell) => loaded.get(cell)!.filter((l) => l.result.verdict.status === 'unknown').length,
  });
  const complete = done.length === plan.runs.length;
  const reasons: string[] = [];
  if (!complete) reasons.push(`${plan.runs.length - done.length} of ${plan.runs.length} runs not done (convoy matrix --resume)`);
  for (const e of expectations) if (e.status !== 'held') reasons.push(`${e.anomaly} where ${JSON.stringify(e.where)}: ${e.reason}`);
  const failedRuns = cells.reduce((n, c) => n + c.fail, 0);
  const unknownRuns = cells.reduce((n, c) => n + c.unknown, 0);
  if (failedRuns) reasons.push(`${failedRuns} ${failedRuns === 1 ? 'run' : 'runs'} failed an expectation of its cell's scenario`);
  if (unknownRuns && plan.expect.length === 0) reasons.push(`${unknownRuns} ${unknownRuns === 1 ? 'run was' : 'runs were'} unknown`);
  const status: MatrixComparison['verdict']['status'] =
    !complete ? 'unknown'
      : expectations.some((e) => e.status === 'failed') ? 'fail'
        : expectations.some((e) => e.status === 'unknown') || (plan.expect.length === 0 && unknownRuns > 0) ? 'unknown'
          : failedRuns > 0 ? 'fail' : 'pass';
  return {
    schema: MATRIX_SCHEMA, name: plan.name, description: plan.description ?? null, seed: plan.seed, repeats: plan.repeats,
    axes: plan.axes.map((a) => ({ name: a.name, values: a.values })), method: METHOD,
    complete, runsPlanned: plan.runs.length, runsDone: done.length, cells, expectations,
    verdict: { status, reasons },
  };
}

/** 0 pass, 1 an expectation failed, 3 unknown (as for a run). */
export function matrixExitCode(c: MatrixComparison): ExitCode {
  return c.verdict.status === 'pass' ? EXIT.ok : c.verdict.status === 'fail' ? EXIT.expectationFailed : EXIT.infrastructure;
}
