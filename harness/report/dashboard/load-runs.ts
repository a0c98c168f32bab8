/** The runs of a results folder: every <run>/result.json directly under it. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { asReportResult, startedAt, type ReportResult } from '../view.ts';

export interface LoadedRun {
  /** The run folder (holds result.json, maybe history.jsonl and report.html). */
  dir: string;
  result: ReportResult;
  /** The matrix folder (its name under the results folder) when the run is one of a matrix's. */
  matrix?: string;
}

export interface LoadProblem {
  file: string;
  reason: string;
}

/**
 * Oldest first (by start time, then run id). Unreadable results are returned as problems. A
 * matrix folder (convoy matrix: plan.json, runs/<run>/) adds its runs, marked with its name.
 */
export function loadRuns(resultsDir: string): { runs: LoadedRun[]; problems: LoadProblem[] } {
  const runs: LoadedRun[] = [];
  const problems: LoadProblem[] = [];
  const add = (dir: string, matrix?: string) => {
    const file = join(dir, 'result.json');
    if (!statSync(dir).isDirectory() || !existsSync(file)) return;
    try {
      runs.push({ dir, result: asReportResult(JSON.parse(readFileSync(file, 'utf8')), file), ...(matrix ? { matrix } : {}) });
    } catch (err) {
      problems.push({ file, reason: (err as Error).message });
    }
  };
  for (const name of readdirSync(resultsDir).sort()) {
    const dir = join(resultsDir, name);
    add(dir);
    const matrixRuns = join(dir, 'runs');
    if (existsSync(join(dir, 'plan.json')) && existsSync(matrixRuns)) for (const run of readdirSync(matrixRuns).sort()) add(join(matrixRuns, run), name);
  }
  return { runs: sortRuns(runs), problems };
}

export function sortRuns<T extends { result: ReportResult }>(runs: T[]): T[] {
  return [...runs].sort((a, b) => (startedAt(a.result) ?? '').localeCompare(startedAt(b.result) ?? '') || a.result.runId.localeCompare(b.result.runId));
}

/** The newest run of each scenario, in scenario order. */
export function latestPerScenario<T extends { result: ReportResult }>(runs: T[], scenarioOf: (r: ReportResult) => string): T[] {
  const latest = new Map<string, T>();
  for (const r of sortRuns(runs)) latest.set(scenarioOf(r.result), r);
  return [...latest.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, r]) => r);
}
