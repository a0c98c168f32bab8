import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { ConvoyError, EXIT } from '../errors.ts';
import { finishBeforeExit, runCleanup } from '../runtime/cleanup.ts';
import { debugDetail, setVerbose, verbose } from '../verbosity.ts';
import { isModuleFile, moduleFile } from '../module-ext.ts';
import { redactString } from '../checker/redact.ts';

/** Each file in commands/ adds one command: `export function register(program)`. */
const COMMANDS_DIR = fileURLToPath(new URL('./commands/', import.meta.url));

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * The program with its commands. Given the command line, only the named command's file is
 * loaded (a command's file is named after it): each command imports what it runs, and loading
 * all of them cost every CLI start about 1.5 s of CPU. Without a command name (--help, a typo)
 * every command is loaded, so help lists them all and commander can suggest one.
 */
export async function buildProgram(argv: string[] = []): Promise<Command> {
  const program = new Command('convoy')
    .description('Benchmark and chaos-test harness for per-key message ordering')
    .version(version())
    .option('--verbose', 'stack traces on the console too (they always go to the run\'s log file); also CONVOY_DEBUG=1')
    // A usage error is one line and a pointer to the help, not the whole help.
    .showHelpAfterError('(add --help for usage)')
    .exitOverride();
  const all = readdirSync(COMMANDS_DIR).filter(isModuleFile).sort();
  const named = moduleFile(String(argv[0]));
  // --version needs no command at all.
  const files = argv.length === 1 && ['--version', '-V'].includes(argv[0]!) ? [] : all.includes(named) ? [named] : all;
  for (const f of files) {
    const mod = (await import(join(COMMANDS_DIR, f))) as { register?: (p: Command) => void };
    mod.register?.(program);
  }
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/** Runs the CLI and returns the exit code (0 held, 1 expectation failed, 2 bad input, 3 infra). */
export async function main(argv: string[]): Promise<number> {
  // --verbose anywhere on the line: stack traces on the console too (workers inherit it).
  if (argv.includes('--verbose')) {
    setVerbose();
    argv = argv.filter((a) => a !== '--verbose');
  }
  const program = await buildProgram(argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
    await finishBeforeExit();
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    await finishBeforeExit();
    if (err instanceof CommanderError) {
      // --help and --version end here with code 0; usage errors were already printed.
      return err.exitCode === 0 ? EXIT.ok : EXIT.badInput;
    }
    await runCleanup();
    if (err instanceof ConvoyError) {
      process.stderr.write(`convoy: ${redactString(err.message)}\n`);
      for (const line of err.detail) process.stderr.write(`  ${redactString(line)}\n`);
      return err.exitCode;
    }
    const e = err instanceof Error ? err : new Error(String(err));
    process.stderr.write(`convoy: internal error: ${redactString(debugDetail(e))}\n`);
    if (!verbose()) process.stderr.write('  (a bug in convoy: run again with --verbose or CONVOY_DEBUG=1 for the stack trace, and report it)\n');
    return EXIT.infrastructure;
  }
}
