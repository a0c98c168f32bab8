import type { Command } from 'commander';
import { fileURLToPath } from 'node:url';
import { ConvoyError } from '../../errors.ts';
import { scenarioBrokers } from '../../suite/discover.ts';
import { runSuiteCommand } from './suite.ts';

const DEMO = fileURLToPath(new URL('../../../workloads/demo/', import.meta.url));

/** `convoy demo`: `convoy suite workloads/demo --out results/demo` after installing what it needs. */
export function register(program: Command): void {
  program
    .command('demo')
    .description('install what is needed (first use), then run the demo suite (workloads/demo) against brokers convoy starts itself; results and dashboard in results/demo/')
    .option('--out <dir>', 'results folder (the dashboard goes to <dir>/dashboard)', 'results/demo')
    .action(async (o: { out: string }) => {
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
      await runSuiteCommand(DEMO, { out: o.out, runtime: 'local', reuseBrokers: true });
    });
}
