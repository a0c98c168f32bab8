import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { composeForAllBrokers } from '../../broker/compose.ts';

export function register(program: Command): void {
  program
    .command('compose')
    .description('write docker-compose.yml for every broker (the containers runtime\'s topology), for users with a Docker engine')
    .option('--out <file>', 'where to write it', 'docker-compose.yml')
    .option('--stdout', 'print it instead')
    .action(async (o: { out: string; stdout?: boolean }) => {
      const text = await composeForAllBrokers();
      if (o.stdout) process.stdout.write(text);
      else writeFileSync(o.out, text);
    });
}
