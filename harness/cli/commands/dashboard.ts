import type { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../errors.ts';
import { buildDashboard } from '../../report/dashboard/build.ts';
import { loadRuns } from '../../report/dashboard/load-runs.ts';

/** `convoy dashboard <results-dir> [--out <dir>]`: a static site and CI files from a folder of runs. */
export function register(program: Command): void {
  program
    .command('dashboard')
    .description('build a static dashboard (runs, trends, comparisons) plus JUnit XML and benchmark JSON from a folder of runs')
    .argument('<results-dir>', 'folder whose sub-folders hold result.json (e.g. results/)')
    .option('--out <dir>', 'where to write the site (default <results-dir>/dashboard)')
    .action((dir: string, o: { out?: string }) => {
      const resultsDir = resolve(dir);
      if (!existsSync(resultsDir) || !statSync(resultsDir).isDirectory()) throw new InputError(`${dir}: not a folder`);
      const { runs, problems } = loadRuns(resultsDir);
      for (const p of problems) process.stderr.write(`convoy: skipped ${p.file}: ${p.reason}\n`);
      if (runs.length === 0) throw new InputError(`${dir}: no <run>/result.json found`);
      const out = buildDashboard({ runs, problems, outDir: resolve(o.out ?? join(resultsDir, 'dashboard')) });
      for (const e of out.reportErrors) process.stderr.write(`convoy: no report for ${e.runId}: ${e.reason}\n`);
      process.stdout.write(`${out.index}\n${out.files.filter((f) => !f.endsWith('.html')).join('\n')}\n`);
    });
}
