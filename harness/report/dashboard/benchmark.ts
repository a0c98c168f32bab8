/**
 * Figures for github-action-benchmark's custom formats: an array of {name, unit, value, extra}.
 * Latency (customSmallerIsBetter) and throughput (customBiggerIsBetter) go in separate files,
 * since the tool takes one direction per file. Broken runs (verdict unknown) are left out:
 * their figures do not describe the system.
 */
import { brokerKind, scenarioName, type ReportResult } from '../view.ts';
import { summarizeRun } from './summary.ts';

export interface BenchmarkPoint {
  name: string;
  unit: string;
  value: number;
  extra?: string;
}

function extra(r: ReportResult): string {
  const versions = Object.entries(r.versions?.brokers ?? {}).map(([k, v]) => `${k} ${v}`).join(', ');
  return `run ${r.runId}; ${brokerKind(r)}${versions ? ` (${versions})` : ''}; verdict ${r.verdict.status}`;
}

const ms = (us: number) => Math.round(us) / 1000;

export function latencyBenchmark(results: readonly ReportResult[]): BenchmarkPoint[] {
  const out: BenchmarkPoint[] = [];
  for (const r of results) {
    if (r.verdict.status === 'unknown') continue;
    const whole = r.latency?.whole ?? {};
    const add = (metric: string, stat: 'p50' | 'p99', label: string) => {
      const s = whole[metric];
      if (s && s.count > 0) out.push({ name: `${scenarioName(r)} ${label} ${stat}`, unit: 'ms', value: ms(s[stat]), extra: extra(r) });
    };
    add('endToEnd', 'p50', 'e2e');
    add('endToEnd', 'p99', 'e2e');
    add('publish', 'p99', 'publish');
  }
  return out;
}

export function throughputBenchmark(results: readonly ReportResult[]): BenchmarkPoint[] {
  const out: BenchmarkPoint[] = [];
  for (const r of results) {
    if (r.verdict.status === 'unknown') continue;
    const f = summarizeRun(r).figures;
    if (f.achievedRate !== null) out.push({ name: `${scenarioName(r)} throughput (sent)`, unit: 'msg/s', value: f.achievedRate, extra: extra(r) });
    if (f.processedRate !== null) out.push({ name: `${scenarioName(r)} throughput (processed)`, unit: 'msg/s', value: f.processedRate, extra: extra(r) });
  }
  return out;
}
