import type { Command } from 'commander';
import { fileURLToPath } from 'node:url';
import { runSuiteCommand } from './suite.ts';

const DEMO = fileURLToPath(new URL('../../../workloads/demo/', import.meta.url));

/** `convoy demo`: `convoy suite workloads/demo` after installing what it needs. */
export function register(program: Command): void {
  program
    .command('demo')
    .description('install what is needed (first use), then run the demo suite (workloads/demo) against brokers convoy starts itself')
    .option('--out <dir>', 'results folder', 'results')
    .action(async (o: { out: string }) => {
      const { setup } = await import('../../setup/setup.ts');
      await setup({ brokers: ['kafka', 'rabbitmq', 'servicebus'], log: (l) => process.stderr.write(`setup: ${l}\n`) });
      await runSuiteCommand(DEMO, { out: o.out, runtime: 'local', reuseBrokers: true });
    });
}
