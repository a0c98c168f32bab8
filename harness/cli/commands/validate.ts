import type { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { scenarioFiles } from '../../suite/discover.ts';
import { EXIT, InputError } from '../../errors.ts';
import { checkRuntime } from '../runtime-flag.ts';
import { stringify } from 'yaml';
import { loadScenario, type LoadOptions } from '../../scenario/load.ts';
import { secs } from '../../scenario/suite-rules.ts';
import { scenarioCatalogue } from '../catalogue.ts';
import type { Scenario } from '../../spec/types.ts';

/** "hot-key (broker kafka, 20 s, 2 faults)" */
export function summary(s: Scenario): string {
  const w = s.workload;
  const length =
    w.durationMs !== undefined
      ? secs(w.durationMs) + (w.messages !== undefined ? ` or ${w.messages} messages` : '')
      : `${w.messages} messages`;
  const faults = `${s.faults.length} ${s.faults.length === 1 ? 'fault' : 'faults'}`;
  return `${s.name} (broker ${s.broker.kind}, ${length}, ${faults})`;
}

/**
 * Checks scenario files without running them: "ok <file>: <summary>", or the file's problems.
 * With `print`, the resolved scenario follows (YAML: `extends:` merged, defaults filled in,
 * durations in ms). Exit code 2 when any file is invalid.
 */
export async function validateFiles(
  files: string[],
  out: (line: string) => void,
  options: Omit<LoadOptions, 'file'>,
  print = false,
): Promise<number> {
  let code: number = EXIT.ok;
  for (const file of files) {
    try {
      const { scenario, warnings } = await loadScenario(file, options);
      out(`ok ${file}: ${summary(scenario)}`);
      for (const w of warnings) out(`  warning: ${w}`);
      if (print) out(stringify(scenario, { lineWidth: 0 }).trimEnd());
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      code = EXIT.badInput;
      out(`invalid ${err.message.startsWith(file) ? err.message : `${file}: ${err.message}`}`);
      for (const line of err.detail) out(`  ${line}`);
    }
  }
  return code;
}

export function register(program: Command, out: (line: string) => void = (line) => process.stdout.write(line + '\n')): void {
  program
    .command('validate')
    .description('check scenario files without running them: the schema, broker and fault settings, and every fault against what the broker can do on the runtime')
    .argument('<file...>', 'scenario YAML files, or folders (their scenarios, as `convoy suite` finds them)')
    .option('--runtime <kind>', 'check the faults against this runtime: local, containers, external', 'local')
    .option('--allow-destructive', 'as for convoy run: allow faults that change or hurt an external broker')
    .option('--print', 'print each resolved scenario (extends merged, defaults filled in, durations in ms)')
    .action(async (files: string[], o: { runtime: string; allowDestructive?: boolean; print?: boolean }) => {
      const target = { runtime: checkRuntime(o.runtime), allowDestructive: Boolean(o.allowDestructive) };
      const expanded = files.flatMap((f) => (existsSync(f) && statSync(f).isDirectory() ? scenarioFiles(f) : [f]));
      const code = await validateFiles(expanded, out, { catalogue: await scenarioCatalogue(), target }, Boolean(o.print));
      if (code !== EXIT.ok) process.exitCode = code;
    });
}
