/**
 * The parts of a result.json (harness/runner/analyze.ts) the report and the dashboard read.
 * Every section past the envelope is optional: a broken run may stop before writing it, and
 * older results may lack newer fields.
 */
import type { ExpectationResult, Verdict } from '../checker/expectations.ts';
import type { Anomalies, FaultWindow } from '../checker/types.ts';
import type { LatencySummary } from '../metrics/histogram.ts';
import type { SkewReport } from '../workload/skew.ts';
import type { ClockSection, ResultShape, EnvironmentSection, HarnessSection, LatencySection, TimelineSection, WorkloadSection } from '../checker/result-schema.ts';

export type { ExpectationResult, Verdict, LatencySummary, SkewReport, FaultWindow };

// The sections' shapes come from the result's one source (harness/checker/result-schema.ts).
export type { CurvePoint, LatencySection, SeriesSection, TimelineSection, WorkloadSection, EnvironmentSection, HarnessSection } from '../checker/result-schema.ts';

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
  versions?: { convoy?: string; node?: string; brokers?: Record<string, string>; clients?: Record<string, string>; client?: { name: string; version: string } };
  environment?: EnvironmentSection;
  verdict: Verdict;
  expectations?: ResultShape['expectations'];
  anomalies?: Partial<Anomalies>;
  workload?: WorkloadSection;
  latency?: LatencySection;
  timeline?: TimelineSection;
  harness?: HarnessSection;
  input?: Record<string, unknown>;
  /** How the check went: its input and the fault windows it used (newer results). */
  check?: { history?: string | null; settleMs?: number; input?: Record<string, unknown>; faults?: FaultWindow[]; clocks?: ClockSection[] };
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
