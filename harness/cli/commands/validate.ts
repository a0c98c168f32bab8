import type { Command } from 'commander';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { scenarioFiles } from '../../suite/discover.ts';
import { EXIT, InputError } from '../../errors.ts';
import { checkRuntime } from '../runtime-flag.ts';
import { stringify } from 'yaml';
import { loadScenario, type LoadOptions } from '../../scenario/load.ts';
import { secs } from '../../scenario/suite-rules.ts';
import { scenarioCatalogue } from '../catalogue.ts';
import type { Scenario } from '../../spec/types.ts';
import { redactSecrets } from '../../checker/redact.ts';

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
 * Checks scenario and matrix files without running them: "ok <file>: <summary>", or the file's
 * problems (a matrix file's cells, as `convoy matrix --dry-run` checks them).
 * With `print`, the resolved scenario follows (YAML: `extends:` merged, defaults filled in,
 * durations in ms). Exit code 2 when any file is invalid.
 */
export async function validateFiles(
  files: string[],
  out: (line: string) => void,
  options: Omit<LoadOptions, 'file'>,
  print = false,
  /** Problems and warnings (stderr from the command line); default `out`. */
  err: (line: string) => void = out,
): Promise<number> {
  let code: number = EXIT.ok;
  const problem = err;
  for (const file of files) {
    try {
      if (isMatrixFile(file)) {
        // A matrix file, checked as `convoy matrix --dry-run` checks it: every cell.
        const { planFor } = await import('./matrix.ts');
        const said: string[] = [];
        const plan = await planFor(file, {} as Parameters<typeof planFor>[1], options.target?.runtime ?? 'local', (line) => said.push(line.replace(/^convoy: warning: [^:]+: /, '')));
        out(`ok ${file}: matrix ${plan.name}, ${plan.cells.length} cells x ${plan.repeats} repeats = ${plan.runs.length} runs`);
        for (const w of new Set(said)) err(`  warning: ${w}`);
        continue;
      }
      const { scenario, locatedWarnings } = await loadScenario(file, options);
      out(`ok ${file}: ${summary(scenario)}`);
      for (const w of locatedWarnings) err(`  warning: ${w}`);
      // Redacted as result.json is: a URL's password or a connection string's key is not printed.
      if (print) out(stringify(redactSecrets(scenario), { lineWidth: 0 }).trimEnd());
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      code = EXIT.badInput;
      problem(`invalid ${e.message.startsWith(file) ? e.message : `${file}: ${e.message}`}`);
      for (const line of e.detail) problem(`  ${line}`);
    }
  }
  return code;
}

/** A matrix file (`scenario:` and `vary:` or `linked:` at its top) rather than a scenario; false when it does not parse (the scenario loader says why). */
export function isMatrixFile(file: string): boolean {
  try {
    const data = parse(readFileSync(file, 'utf8')) as unknown;
    return typeof data === 'object' && data !== null && 'scenario' in data && ('vary' in data || 'linked' in data);
  } catch {
    return false;
  }
}

/**
 * The files `convoy validate <folder>` checks: a suite's folder (suite.txt), the scenarios its
 * suite runs; any other folder, the YAML files in it and every folder below it, sorted (hidden
 * folders and node_modules left out).
 */
export function yamlFilesUnder(folder: string): string[] {
  if (existsSync(join(folder, 'suite.txt'))) return scenarioFiles(folder);
  const files = (readdirSync(folder, { recursive: true }) as string[])
    .filter((f) => /\.ya?ml$/i.test(f) && !f.split('/').some((part) => part.startsWith('.') || part === 'node_modules'))
    .map((f) => join(folder, f))
    .filter((f) => statSync(f).isFile())
    .sort();
  if (files.length === 0) throw new InputError(`${folder}: no scenario or matrix files (*.yaml, *.yml) in it or below it`);
  return files;
}

export function register(program: Command, out: (line: string) => void = (line) => process.stdout.write(line + '\n'), err?: (line: string) => void): void {
  // From the command line, problems and warnings go to stderr as every command's do (a test's `out` takes both).
  const problems = err ?? (arguments.length >= 2 ? out : (line: string) => void process.stderr.write(line + '\n'));
  program
    .command('validate')
    .description('check scenario files without running them: the schema, broker and fault settings, and every fault against what the broker can do on the runtime')
    .argument('<file...>', 'scenario or matrix YAML files, or folders: a suite\'s folder (suite.txt), the scenarios it runs; any other, every YAML file in it and below it')
    .option('--runtime <kind>', 'check the faults against this runtime: local, containers, external', 'local')
    .option('--allow-destructive', 'as for convoy run: allow faults that change or hurt an external broker')
    .option('--print', 'print each resolved scenario (extends merged, defaults filled in, durations in ms)')
    .action(async (files: string[], o: { runtime: string; allowDestructive?: boolean; print?: boolean }) => {
      const target = { runtime: checkRuntime(o.runtime), allowDestructive: Boolean(o.allowDestructive) };
      const expanded = [...new Set(files.flatMap((f) => (existsSync(f) && statSync(f).isDirectory() ? yamlFilesUnder(f) : [f])))];
      const code = await validateFiles(expanded, out, { catalogue: await scenarioCatalogue(), target }, Boolean(o.print), problems);
      if (code !== EXIT.ok) process.exitCode = code;
    });
}
