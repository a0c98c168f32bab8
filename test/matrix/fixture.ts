/** Fake matrix runs for the comparison's tests: result.json files with the fields it reads. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MatrixPlan } from '../../harness/matrix/plan.ts';
import type { DoneRun } from '../../harness/matrix/run-matrix.ts';
import { encode, newHistogram, record } from '../../harness/metrics/histogram.ts';
import type { Scenario } from '../../harness/spec/types.ts';

function encoded(values: number[]): string {
  const h = newHistogram();
  for (const v of values) record(h, v);
  return encode(h);
}

export interface Fake {
  cell: string;
  verdict: 'pass' | 'fail' | 'unknown';
  reorders: number;
  sent: number;
  e2e: number[];
  /** The run's consumers.group (harness/metrics/group-ownership.ts), when it has one. */
  group?: { handovers: number; departures: { fault: string; consumer: string; takenByOthers: number }[]; unownedMs: number; longestUnownedMs: number };
}

export function plan(cells: string[], repeats: number, expect: MatrixPlan['expect'] = []): MatrixPlan {
  return {
    schema: 'convoy.matrix-plan.v1', name: 'fake', file: 'fake.yaml', seed: 1, repeats, expect,
    axes: [{ name: 'consumers.concurrency.mode', values: cells }],
    cells: cells.map((id, index) => ({ index, id, label: `mode=${id}`, values: { 'consumers.concurrency.mode': id }, scenario: {} as Scenario })),
    runs: [], created: '2026-12-02T00:00:00.000Z',
  };
}

export function write(dir: string, runs: Fake[]): DoneRun[] {
  return runs.map((f, slot) => {
    const runId = `run-${slot}`;
    mkdirSync(join(dir, 'runs', runId), { recursive: true });
    const result = {
      runId, verdict: { status: f.verdict, reasons: f.verdict === 'unknown' ? ['the harness could not keep the target rate'] : [] },
      anomalies: { reorder: { count: f.reorders, keys: 1, examples: [] } },
      expectations: [{ type: 'lost', expected: '0', window: null, found: 0, keys: 0, held: f.verdict !== 'fail', source: 'default' }],
      workload: { sent: f.sent, achievedRate: 100 + slot, finalState: { naive: { strategy: 'naive', primary: true, wrong: f.reorders > 0 ? 2 : 0 }, versioned: { strategy: 'versioned', primary: false, wrong: 0 } } },
      latency: { encoded: { endToEnd: encoded(f.e2e), publish: encoded([100, 200]) } },
      ...(f.group ? { consumers: { group: { lanes: 6, assignments: 4, revocations: 2, handoversFrom: {}, list: [], ...f.group } } } : {}),
      harness: { cpu: { host: { meanPercent: 40 }, workers: { c1: { meanPercent: 10 }, p1: { meanPercent: 5 } } }, consumers: { c1: { phases: { deliveries: f.sent } }, c2: { phases: { deliveries: 0 } } } },
    };
    writeFileSync(join(dir, 'runs', runId, 'result.json'), JSON.stringify(result));
    return { slot, cell: f.cell, repeat: slot, seed: 1, runId, dir: `runs/${runId}`, verdict: f.verdict };
  });
}

