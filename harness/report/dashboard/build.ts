/**
 * Writes the dashboard: a static site (index.html, compare.html, each run's report under
 * runs/<run-id>/report.html) plus the CI files (junit.xml, benchmark-latency.json,
 * benchmark-throughput.json). Every page is self-contained and opens from file://.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { renderReport, REPORT_FILE } from '../render.ts';
import { scenarioName } from '../view.ts';
import { latencyBenchmark, throughputBenchmark } from './benchmark.ts';
import { comparePage } from './compare-page.ts';
import { indexPage, type MatrixEntry } from './index-page.ts';
import { junitXml, type SuiteEntry } from './junit.ts';
import { latestPerScenario, sortRuns, type LoadedRun, type LoadProblem } from './load-runs.ts';
import { summarizeRun } from './summary.ts';

export const JUNIT_FILE = 'junit.xml';
export const BENCH_LATENCY_FILE = 'benchmark-latency.json';
export const BENCH_THROUGHPUT_FILE = 'benchmark-throughput.json';

export interface DashboardInput {
  runs: LoadedRun[];
  outDir: string;
  problems?: LoadProblem[];
  /**
   * What the CI files cover. Default: the newest run of each scenario. The suite passes its
   * own runs, including scenarios that did not load or produced no result.
   */
  ciEntries?: SuiteEntry[];
  now?: Date;
}

export interface DashboardOutput {
  index: string;
  files: string[];
  reportsRendered: number;
  reportErrors: { runId: string; reason: string }[];
}

/** Copies (or, when missing, renders) a run's report into the site; returns its href. */
function placeReport(run: LoadedRun, outDir: string, out: DashboardOutput): string | null {
  const dest = join(outDir, 'runs', safeName(run.result.runId));
  const href = `runs/${encodeURIComponent(safeName(run.result.runId))}/${REPORT_FILE}`;
  try {
    mkdirSync(dest, { recursive: true });
    const existing = join(run.dir, REPORT_FILE);
    if (existsSync(existing)) copyFileSync(existing, join(dest, REPORT_FILE));
    else {
      const history = join(run.dir, 'history.jsonl');
      writeFileSync(join(dest, REPORT_FILE), renderReport(run.result, existsSync(history) ? history : undefined));
      out.reportsRendered++;
    }
    return href;
  } catch (err) {
    out.reportErrors.push({ runId: run.result.runId, reason: (err as Error).message });
    return null;
  }
}

/**
 * Each matrix's comparison page, copied next to index.html as <matrix folder>.html: its links
 * to runs (runs/<run-id>/report.html) then find the reports placed above.
 */
function placeMatrices(runs: LoadedRun[], outDir: string): MatrixEntry[] {
  const folders = new Map<string, string>();
  for (const r of runs) if (r.matrix) folders.set(r.matrix, dirname(dirname(r.dir)));
  return [...folders].sort(([a], [b]) => a.localeCompare(b)).map(([folder, dir]) => {
    let verdict: string | null = null;
    let name = folder;
    let href: string | null = null;
    try {
      const m = JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as { name?: string; verdict?: { status?: string } };
      name = m.name ?? folder;
      verdict = m.verdict?.status ?? null;
      copyFileSync(join(dir, 'matrix.html'), join(outDir, `${safeName(folder)}.html`));
      href = `${encodeURIComponent(safeName(folder))}.html`;
    } catch {
      // No comparison yet (a matrix still running): its runs are listed without the link.
    }
    return { folder, name, verdict, href };
  });
}

/** A run id as a folder name (they are already safe; this guards against odd input). */
function safeName(runId: string): string {
  return runId.replace(/[^A-Za-z0-9._-]/g, '_') || 'run';
}

export function buildDashboard(input: DashboardInput): DashboardOutput {
  const { outDir } = input;
  mkdirSync(outDir, { recursive: true });
  const out: DashboardOutput = { index: join(outDir, 'index.html'), files: [], reportsRendered: 0, reportErrors: [] };
  const runs = sortRuns(input.runs);
  const summaries = runs.map((r) => ({ ...summarizeRun(r.result, placeReport(r, outDir, out)), ...(r.matrix ? { matrix: r.matrix } : {}) }));
  const matrices = placeMatrices(runs, outDir);
  const entries = input.ciEntries ?? latestPerScenario(runs, scenarioName).map((r) => ({ scenario: scenarioName(r.result), result: r.result }));
  const ciResults = entries.flatMap((e) => (e.result ? [e.result] : []));
  const write = (name: string, text: string) => {
    writeFileSync(join(outDir, name), text);
    out.files.push(join(outDir, name));
  };
  write(JUNIT_FILE, junitXml(entries));
  write(BENCH_LATENCY_FILE, JSON.stringify(latencyBenchmark(ciResults), null, 2) + '\n');
  write(BENCH_THROUGHPUT_FILE, JSON.stringify(throughputBenchmark(ciResults), null, 2) + '\n');
  write('compare.html', comparePage(summaries));
  write(
    'index.html',
    indexPage({
      runs: summaries,
      problems: [...(input.problems ?? []), ...out.reportErrors.map((e) => ({ file: e.runId, reason: `report: ${e.reason}` }))],
      files: [[JUNIT_FILE, 'JUnit XML'], [BENCH_LATENCY_FILE, 'benchmark: latency'], [BENCH_THROUGHPUT_FILE, 'benchmark: throughput']],
      generatedAt: (input.now ?? new Date()).toISOString(),
      matrices,
    }),
  );
  return out;
}
