/**
 * The parts of a result.json (harness/runner/analyze.ts) the report and the dashboard read.
 * Every section past the envelope is optional: a broken run may stop before writing it, and
 * older results may lack newer fields.
 */
import type { ExpectationResult, Verdict } from '../checker/expectations.ts';
import type { Anomalies, FaultWindow } from '../checker/types.ts';
import type { LatencySummary } from '../metrics/histogram.ts';
import type { SkewReport } from '../workload/skew.ts';

export type { ExpectationResult, Verdict, LatencySummary, SkewReport, FaultWindow };

export interface CurvePoint {
  percentile: number;
  us: number;
}

export interface LatencySection {
  unit?: 'us';
  whole?: Record<string, LatencySummary>;
  curves?: Record<string, CurvePoint[]>;
  publishDelayOutsideFaults?: LatencySummary;
  phases?: ({ fault: string; kind: string } & Partial<Record<'before' | 'during' | 'after', Record<string, LatencySummary>>>)[];
  encoded?: Record<string, string>;
}

export interface SeriesSection {
  originUs: number;
  bucketMs: number;
  sent: number[];
  acked: number[];
  failed?: number[];
  processed: number[];
  errors?: number[];
  backlog: number[];
  endToEnd: ({ p50: number; p99: number; max: number } | null)[];
}

export interface TimelineSection {
  startUs?: number;
  measureStartUs?: number;
  endUs?: number;
  series?: SeriesSection;
  faults?: { name: string; kind: string; startUs?: number; endUs?: number; error?: string; evidence?: unknown; endEvidence?: unknown }[];
  windows?: FaultWindow[];
  settleMs?: number;
  anomalies?: { type: string; key: string | null; at: number }[];
  /** Occurrences in all (the list above may be capped). */
  anomaliesTotal?: number;
  rebalances?: number;
  marks?: { name: string; at: number; detail?: unknown }[];
}

export interface WorkloadSection {
  plannedMessages?: number;
  sent?: number;
  sentMeasured?: number;
  ackedMeasured?: number;
  targetRate?: number | null;
  achievedRate?: number;
  skew?: SkewReport;
  finalState?: Record<string, { strategy: string; primary: boolean; [field: string]: unknown }> | null;
}

export interface ReportResult {
  schema?: string;
  runId: string;
  seed?: number | string | null;
  scenario?: { name?: string; description?: string; broker?: { kind?: string; [f: string]: unknown }; [f: string]: unknown } | null;
  startedAt?: string;
  finishedAt?: string;
  /** The checker's envelope names (convoy check --json). */
  started?: string | null;
  finished?: string | null;
  versions?: { convoy?: string; node?: string; brokers?: Record<string, string>; clients?: Record<string, string> };
  environment?: { runtime?: string | null; broker?: string; emulator?: { name: string; version: string; notes?: string } | null; endpoint?: unknown; host?: Record<string, unknown> };
  verdict: Verdict;
  expectations?: ExpectationResult[];
  anomalies?: Partial<Anomalies>;
  workload?: WorkloadSection;
  latency?: LatencySection;
  timeline?: TimelineSection;
  harness?: { incomplete?: string[]; drain?: { drained: boolean; waitedMs: number; reason: string }; worstLoopLagMs?: number; [f: string]: unknown };
  input?: Record<string, unknown>;
  /** How the check went: its input and the fault windows it used (newer results). */
  check?: { history?: string | null; settleMs?: number; input?: Record<string, unknown>; faults?: FaultWindow[] };
  [section: string]: unknown;
}

/** The fault windows the checker used (check.faults; older results: timeline.windows). */
export function faultWindowsOf(r: ReportResult): FaultWindow[] {
  return r.check?.faults ?? r.timeline?.windows ?? [];
}

export function settleMsOf(r: ReportResult): number | undefined {
  return r.check?.settleMs ?? r.timeline?.settleMs;
}

/** The scenario name a result belongs to. */
export function scenarioName(r: ReportResult): string {
  return r.scenario?.name ?? r.runId.replace(/-\d{8}-\d{6}-[0-9a-f]{4}$/, '');
}

/** When the run started (ISO), whichever envelope wrote it. */
export function startedAt(r: ReportResult): string | null {
  return r.startedAt ?? r.started ?? null;
}

export function brokerKind(r: ReportResult): string {
  return r.environment?.broker ?? r.scenario?.broker?.kind ?? 'unknown';
}

/** Throws unless `value` looks like a result.json (the least the pages need). */
export function asReportResult(value: unknown, where: string): ReportResult {
  const v = value as Partial<ReportResult> | null;
  if (!v || typeof v !== 'object' || typeof v.runId !== 'string' || !v.verdict || typeof v.verdict.status !== 'string') {
    throw new Error(`${where}: not a convoy result (needs runId and verdict.status)`);
  }
  return v as ReportResult;
}
