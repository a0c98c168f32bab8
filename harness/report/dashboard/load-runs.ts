/** The runs of a results folder: every <run>/result.json directly under it. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { asReportResult, startedAt, type ReportResult } from '../view.ts';

export interface LoadedRun {
  /** The run folder (holds result.json, maybe history.jsonl and report.html). */
  dir: string;
  result: ReportResult;
}

export interface LoadProblem {
  file: string;
  reason: string;
}

/** Oldest first (by start time, then run id). Unreadable results are returned as problems. */
export function loadRuns(resultsDir: string): { runs: LoadedRun[]; problems: LoadProblem[] } {
  const runs: LoadedRun[] = [];
  const problems: LoadProblem[] = [];
  for (const name of readdirSync(resultsDir).sort()) {
    const dir = join(resultsDir, name);
    const file = join(dir, 'result.json');
    if (!statSync(dir).isDirectory() || !existsSync(file)) continue;
    try {
      runs.push({ dir, result: asReportResult(JSON.parse(readFileSync(file, 'utf8')), file) });
    } catch (err) {
      problems.push({ file, reason: (err as Error).message });
    }
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
