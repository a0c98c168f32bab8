/**
 * One memory-broker run inside the test's own process, as `convoy run <file>` does it: the
 * scenario loaded with the CLI's catalogue and checks, then the runner (harness/runner/
 * run-and-analyze.ts runOnce): the broker in this process, a process per worker, the fault
 * timeline, the drain, the analysis, the result files. Only the CLI's own process start
 * (tsx and every command's modules, about 2 s of CPU) is saved; rerun.test.ts runs the CLI.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scenarioCatalogue } from '../../../harness/cli/catalogue.ts';
import { runOnce } from '../../../harness/runner/run-and-analyze.ts';
import type { Result } from '../../../harness/runner/analyze.ts';
import { loadScenarioFile } from '../../../harness/scenario/load.ts';

export async function runHere(file: string): Promise<{ result: Result; runDir: string }> {
  const scenario = await loadScenarioFile(file, { catalogue: await scenarioCatalogue(), target: { runtime: 'local', allowDestructive: false } });
  const resultsDir = mkdtempSync(join(tmpdir(), 'convoy-memory-run-'));
  return runOnce(scenario, { runtime: 'local', resultsDir, keep: false, allowDestructive: false, repeat: 1, quiet: true, scenarioFile: file });
}
