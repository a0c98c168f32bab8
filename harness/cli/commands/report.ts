import type { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../errors.ts';
import { writeReport } from '../../report/render.ts';

/** `convoy report <run-dir>`: (re)renders results/<run-id>/report.html from the run's files. */
export function register(program: Command): void {
  program
    .command('report')
    .description('render a run\'s report.html (one self-contained page) from its result.json and history.jsonl')
    .argument('<run-dir>', 'a run folder, e.g. results/<run-id>/ (or its result.json)')
    .action((dir: string) => {
      let runDir = resolve(dir);
      if (existsSync(runDir) && statSync(runDir).isFile()) runDir = resolve(runDir, '..');
      if (!existsSync(join(runDir, 'result.json'))) throw new InputError(`${dir}: no result.json here (expected a run folder such as results/<run-id>/)`);
      let out: string;
      try {
        out = writeReport(runDir);
      } catch (err) {
        if (err instanceof SyntaxError || /not a convoy result/.test((err as Error).message)) {
          throw new InputError(`${join(runDir, 'result.json')}: ${(err as Error).message}`);
        }
        throw err;
      }
      process.stdout.write(`${out}\n`);
    });
}
