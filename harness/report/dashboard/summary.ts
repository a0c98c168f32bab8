/** One run as the dashboard shows it: identity, versions, verdict and key figures. */
import { ANOMALY_TYPES } from '../../checker/types.ts';
import { label } from '../../checker/expectations.ts';
import { brokerKind, scenarioName, startedAt, type CurvePoint, type LatencySummary, type ReportResult } from '../view.ts';

export interface RunSummary {
  runId: string;
  scenario: string;
  started: string | null;
  finished: string | null;
  broker: string;
  brokerVersions: Record<string, string>;
  clients: Record<string, string>;
  runtime: string | null;
  convoy: string | null;
  verdict: 'pass' | 'fail' | 'unknown';
  reasons: string[];
  figures: {
    sent: number | null;
    targetRate: number | null;
    achievedRate: number | null;
    /** Applies per second from the start of the measured phase to the end of the series (the drain included). */
    processedRate: number | null;
    latency: Record<string, Pick<LatencySummary, 'count' | 'p50' | 'p90' | 'p99' | 'p999' | 'max'>>;
  };
  anomalies: Record<string, number>;
  expectations: { label: string; expected: string; found: number | null; held: boolean | null }[];
  /** The scenario's broker section (redacted in result.json): what a "broker configuration" is. */
  brokerSettings: Record<string, unknown>;
  faults: string[];
  curves: Record<string, CurvePoint[]>;
  /** Relative link to the run's report from the dashboard, if one was written. */
  report: string | null;
  /** The matrix folder the run belongs to (convoy matrix), if any. */
  matrix?: string;
}

export function summarizeRun(r: ReportResult, report: string | null = null): RunSummary {
  const broker = brokerKind(r);
  // The result holds the broker's own client packages (its module names them).
  const clients = { ...(r.versions?.clients ?? {}) };
  const whole = r.latency?.whole ?? {};
  const latency: RunSummary['figures']['latency'] = {};
  for (const [m, s] of Object.entries(whole)) if (s && s.count > 0) latency[m] = { count: s.count, p50: s.p50, p90: s.p90, p99: s.p99, p999: s.p999, max: s.max };
  const series = r.timeline?.series;
  const processedRate = series && series.processed.length ? series.processed.reduce((a, b) => a + b, 0) / ((series.processed.length * series.bucketMs) / 1000) : null;
  const anomalies: Record<string, number> = {};
  for (const t of ANOMALY_TYPES) if (r.anomalies?.[t]) anomalies[t] = r.anomalies[t]!.count;
  const { kind: _kind, ...brokerSettings } = (r.scenario?.broker ?? {}) as Record<string, unknown>;
  return {
    runId: r.runId,
    scenario: scenarioName(r),
    started: startedAt(r),
    finished: r.finishedAt ?? r.finished ?? null,
    broker,
    brokerVersions: r.versions?.brokers ?? {},
    clients,
    runtime: r.environment?.runtime ?? null,
    convoy: r.versions?.convoy ?? null,
    verdict: r.verdict.status,
    reasons: r.verdict.reasons ?? [],
    figures: {
      sent: r.workload?.sent ?? null,
      targetRate: r.workload?.targetRate ?? null,
      achievedRate: r.workload?.achievedRate ?? null,
      processedRate: processedRate === null ? null : Math.round(processedRate),
      latency,
    },
    anomalies,
    expectations: (r.expectations ?? [])
      .filter((e) => !(e.source === 'default' && e.expected === 'any'))
      .map((e) => ({ label: label(e), expected: e.expected, found: e.found, held: e.held })),
    brokerSettings,
    faults: (r.check?.faults ?? r.timeline?.windows ?? []).map((w) => `${w.name}${w.kind ? ` (${w.kind})` : ''}`),
    curves: Object.fromEntries(['publish', 'publishDelay', 'endToEnd'].map((m) => [m, r.latency?.curves?.[m] ?? []])),
    report,
  };
}
