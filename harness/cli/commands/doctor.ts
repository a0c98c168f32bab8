import type { Command } from 'commander';
import { brokerNames, loadBroker } from '../../broker/registry.ts';
import { EXIT } from '../../errors.ts';
import { examine, formatReport } from '../../setup/doctor.ts';
import { needsOf } from '../../setup/setup.ts';
import { TEST_NEEDS } from '../../setup/needs.ts';

/** `convoy doctor`: what is in place and what is missing; exit 0 when the default scenarios can run, 3 otherwise. */
export function register(program: Command): void {
  program
    .command('doctor')
    .description('check what the local runtime needs: programs and their versions, the librdkafka binding, the cache (changes nothing; exit 3 when something is missing)')
    .option('--json', 'print the report as JSON')
    .action(async (o: { json?: boolean }) => {
      const modules = await Promise.all(brokerNames().map((n) => loadBroker(n)));
      const report = examine(modules, needsOf(modules, false), TEST_NEEDS);
      process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report).join('\n')}\n`);
      process.exitCode = report.ready ? EXIT.ok : EXIT.infrastructure;
    });
}
