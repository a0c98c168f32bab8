import type { Command } from 'commander';
import { spawnSync } from 'node:child_process';
import { setup } from '../../setup/setup.ts';
import { startChartTools } from '../../setup/chart-tools.ts';
import { CHECKOUT } from '../../module-ext.ts';

export function register(program: Command): void {
  program
    .command('test')
    .description('install what the tests need (first use), then run the test suite (npm test)')
    .option('--unit', 'only the tests that need no broker')
    .argument('[filters...]', 'only test files whose path contains one of these')
    .action(async (filters: string[], o: { unit?: boolean }) => {
      const t = Date.now();
      // The chart's checkers build in the background, at the lowest priority, while the suite
      // runs; their tests wait for them (harness/setup/chart-tools.ts). A filtered run leaves it
      // to those tests, should it include them.
      if (!o.unit && filters.length === 0) startChartTools();
      if (!o.unit) await setup({ forTests: true, log: (l) => process.stderr.write(`setup: ${l}\n`) });
      const args = ['run', 'test', '--', ...(o.unit ? ['--unit'] : []), ...filters];
      // The set-up's time, for the tests' timing summary (bin/test-summary.js).
      const env = { ...process.env, CONVOY_SETUP_MS: String(Date.now() - t) };
      const r = spawnSync('npm', args, { cwd: CHECKOUT, stdio: 'inherit', env });
      process.exitCode = r.status === 0 ? 0 : 1;
    });
}
