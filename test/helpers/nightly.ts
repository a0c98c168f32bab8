/** A nightly scenario run end to end by a real-broker test, with its result and history. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenarioFile } from '../../harness/scenario/load.ts';
import { runOnce } from '../../harness/runner/run-and-analyze.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { ROOT, readHistory } from '../runner/helpers.ts';

const results = mkdtempSync(join(tmpdir(), 'convoy-nightly-'));

/**
 * Runs workloads/nightly/<name>.yaml, on the broker the test suite holds when there is one (its
 * network fault is undone at its end, and the suite's files run one at a time).
 */
export async function runNightly(name: string): Promise<{ result: Record<string, any>; history: Record<string, any>[] }> {
  const scenario = await loadScenarioFile(join(ROOT, 'workloads/nightly', `${name}.yaml`), { catalogue: await scenarioCatalogue(), onWarning: () => {} });
  const { result, runDir } = await runOnce(scenario, { runtime: 'local', resultsDir: results, keep: false, allowDestructive: false, repeat: 1, quiet: true });
  return { result: result as Record<string, any>, history: readHistory(runDir) };
}

