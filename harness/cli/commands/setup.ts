import type { Command } from 'commander';
import { setup } from '../../setup/setup.ts';

export function register(program: Command): void {
  program
    .command('setup')
    .description('install what the local runtime needs: Debian packages, broker jars, Toxiproxy (cached in ~/.cache/convoy or $CONVOY_CACHE)')
    .option('--broker <names...>', 'only these brokers')
    .option('--tests', 'also what `convoy test` needs (Chromium, for the report tests)')
    .action(async (o: { broker?: string[]; tests?: boolean }) => {
      await setup({ brokers: o.broker, forTests: o.tests, log: (l) => process.stderr.write(`setup: ${l}\n`) });
    });
}
