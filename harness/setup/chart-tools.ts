/**
 * The programs that check the Helm chart and the Dockerfile offline (helm, kubectl-validate,
 * hadolint), built or installed into convoy's cache by bin/chart-tools.sh, which holds their
 * versions. Cold, the two Go builds take minutes of CPU on 2 cores, so `convoy test` starts the
 * script in the background before the suite, at the lowest priority, and the chart's tests call
 * it again: the second call waits on the first's lock, then finds the programs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { InfraError } from '../errors.ts';
import { CHECKOUT } from '../module-ext.ts';
import { cacheDir } from '../runtime/cache.ts';

const SCRIPT = join(CHECKOUT, 'bin', 'chart-tools.sh');

export interface ChartTools {
  helm: string;
  'kubectl-validate': string;
  hadolint: string;
}

/** Where the background build writes what it says (a failure there is said again by the tests). */
export function chartToolsLog(): string {
  return join(cacheDir('tools'), 'chart-tools.log');
}

/**
 * Starts bin/chart-tools.sh on its own, detached, and returns at once: what is in the cache
 * already takes it a moment, a cold build minutes. Its output goes to chartToolsLog().
 */
export function startChartTools(): void {
  const out = openSync(chartToolsLog(), 'w');
  try {
    spawn('bash', [SCRIPT], { cwd: CHECKOUT, detached: true, stdio: ['ignore', out, out] }).unref();
  } finally {
    closeSync(out);
  }
}

/** The programs' paths, building what is missing (or waiting for a build under way). */
export function chartTools(timeoutMs = 1_200_000): ChartTools {
  const r = spawnSync('bash', [SCRIPT], { cwd: CHECKOUT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
  if (r.status !== 0) {
    const why = (r.stderr || r.error?.message || `exit ${r.status ?? r.signal}`).trim().split('\n');
    throw new InfraError(`bin/chart-tools.sh: ${why[0]}`, why.slice(1));
  }
  const paths = Object.fromEntries(r.stdout.trim().split('\n').map((l) => l.split(' ') as [string, string]));
  return paths as unknown as ChartTools;
}
