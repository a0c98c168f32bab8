import type { Command } from 'commander';
import { stopLeftovers } from '../../runtime/leftovers.ts';

/** Prints what was stopped (one line each) and what was left alone. */
export async function cleanCommand(out: (line: string) => void = (l) => process.stdout.write(l + '\n')): Promise<void> {
  const { stopped, leftAlone } = await stopLeftovers();
  for (const s of stopped) out(`stopped ${s.what}${s.pids.length ? `: pid ${s.pids.join(', ')}` : ''}`);
  for (const l of leftAlone) out(`left alone: ${l}`);
  if (stopped.length === 0) out('nothing convoy started is running');
}

export function register(program: Command): void {
  program
    .command('clean')
    .description('stop everything convoy started that is still running: `brokers up` brokers and whatever a killed run left (same as `brokers down --all`)')
    .action(() => cleanCommand());
}
