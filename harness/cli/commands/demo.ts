import { Option, type Command } from 'commander';
import { join } from 'node:path';
import { ConvoyError } from '../../errors.ts';
import { scenarioBrokers } from '../../suite/discover.ts';
import { runSuiteCommand } from './suite.ts';
import { CHECKOUT } from '../../module-ext.ts';

/** In the checkout (not the compiled tree's link to it): its path is shown to the user. */
const DEMO = join(CHECKOUT, 'workloads', 'demo') + '/';

/** `convoy demo`: `convoy suite workloads/demo --results results/demo` after installing what it needs. */
export function register(program: Command): void {
  program
    .command('demo')
    .description('install what is needed (first use), then run the demo suite (workloads/demo) against brokers convoy starts itself; results and dashboard in results/demo/')
    .option('--results <dir>', 'results folder (the dashboard goes to <dir>/dashboard)', 'results/demo')
    .addOption(new Option('--out <dir>', 'the older name of --results').hideHelp())
    .action(async (o: { results: string; out?: string }) => {
      const { setup } = await import('../../setup/setup.ts');
      const log = (l: string) => process.stderr.write(`setup: ${l}\n`);
      try {
        await setup({ brokers: await scenarioBrokers(DEMO), log });
      } catch (err) {
        if (!(err instanceof ConvoyError)) throw err;
        // The runs that need what is missing say so in their results; the others still run.
        log(`${err.message}`);
        for (const line of err.detail) log(`  ${line}`);
      }
      await runSuiteCommand(DEMO, { results: o.out ?? o.results, runtime: 'local', reuseBrokers: true });
    });
}
