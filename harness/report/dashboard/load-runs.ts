/** The runs of a results folder: every <run>/result.json below it. */
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

/** How deep below the results folder runs are looked for (results/<suite>/<matrix>/runs/<run>). */
const MAX_DEPTH = 4;

/**
 * Every run below a results folder, oldest first (by start time, then run id): a folder with a
 * result.json is a run; other folders are walked (a suite's folder of runs, `results/demo/`).
 * A matrix folder (convoy matrix: plan.json, runs/<run>/) adds its runs, marked with its path
 * under the results folder. Unreadable results are returned as problems.
 */
export function loadRuns(resultsDir: string): { runs: LoadedRun[]; problems: LoadProblem[] } {
  const runs: LoadedRun[] = [];
  const problems: LoadProblem[] = [];
  const add = (dir: string, matrix?: string) => {
    const file = join(dir, 'result.json');
    try {
      runs.push({ dir, result: asReportResult(JSON.parse(readFileSync(file, 'utf8')), file), ...(matrix ? { matrix } : {}) });
    } catch (err) {
      problems.push({ file, reason: (err as Error).message });
    }
  };
  const walk = (dir: string, rel: string, depth: number) => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const sub = join(dir, name);
      if (!statSync(sub).isDirectory()) continue;
      const subRel = rel ? `${rel}/${name}` : name;
      const matrixRuns = join(sub, 'runs');
      if (existsSync(join(sub, 'result.json'))) add(sub);
      else if (existsSync(join(sub, 'plan.json')) && existsSync(matrixRuns)) {
        for (const run of readdirSync(matrixRuns).sort()) if (existsSync(join(matrixRuns, run, 'result.json'))) add(join(matrixRuns, run), subRel);
      } else if (depth < MAX_DEPTH) walk(sub, subRel, depth + 1);
    }
  };
  walk(resultsDir, '', 1);
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
