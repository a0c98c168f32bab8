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

/**
 * What a figure is of: the scenario, the client and the broker, with their versions, so that a
 * new client or broker version starts a new series rather than reading as a regression.
 */
export function seriesName(r: ReportResult): string {
  const kind = brokerKind(r);
  const brokerVersion = r.versions?.brokers?.[kind] ?? r.versions?.brokers?.emulator;
  // Results from before the result named its client carry only the broker in their names.
  const client = r.versions?.client;
  const parts = [client ? `${client.name} ${client.version}` : null, `${kind}${brokerVersion ? ` ${brokerVersion}` : ''}`].filter(Boolean);
  return `${scenarioName(r)} [${parts.join(', ')}]`;
}

const ms = (us: number) => Math.round(us) / 1000;

/**
 * Latency outside every fault window: a fault's planned effect (a 3 s stall in the p99) is not
 * a regression, and would make an alert follow the fault's timing. Older results without
 * those figures give none.
 */
export function latencyBenchmark(results: readonly ReportResult[]): BenchmarkPoint[] {
  const out: BenchmarkPoint[] = [];
  for (const r of results) {
    if (r.verdict.status === 'unknown') continue;
    const quiet = r.latency?.outsideFaults ?? {};
    const add = (metric: string, stat: 'p50' | 'p99', label: string) => {
      const s = quiet[metric];
      if (s && s.count > 0) out.push({ name: `${seriesName(r)} ${label} ${stat} outside faults`, unit: 'ms', value: ms(s[stat]), extra: extra(r) });
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
    if (f.achievedRate !== null) out.push({ name: `${seriesName(r)} throughput (sent)`, unit: 'msg/s', value: f.achievedRate, extra: extra(r) });
    if (f.processedRate !== null) out.push({ name: `${seriesName(r)} throughput (processed)`, unit: 'msg/s', value: f.processedRate, extra: extra(r) });
  }
  return out;
}
