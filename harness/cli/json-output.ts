/**
 * `--json` on the commands that run things (run, suite, matrix): stdout carries one JSON
 * document and nothing else, for a CI script to parse. While the command works, whatever it
 * would print on stdout (a run's summary, the suite's table, the matrix's comparison) goes to
 * stderr with its progress; the document is written last, pretty-printed as `check --json`,
 * `doctor --json` and `brokers status --json` print theirs. Bad input prints its one line on
 * stderr and nothing on stdout (exit 2), as those commands do.
 */
import { EXIT, type ExitCode } from '../errors.ts';

/** The --json help text every such command ends its own with. */
export const JSON_HELP = 'nothing else goes to stdout (progress and summaries go to stderr); exit codes as without --json; bad input: one line on stderr, nothing on stdout, exit 2';

/** What each exit code means, in the documents (README's list of exit codes). */
export const EXIT_MEANING: Record<ExitCode, string> = {
  [EXIT.ok]: 'pass: every expectation held',
  [EXIT.expectationFailed]: 'fail: an expectation failed',
  [EXIT.badInput]: 'bad input',
  [EXIT.infrastructure]: 'unknown: a run could not complete, keep its rate or be judged',
};

/** The verdict an exit code stands for (a document's `verdict`). */
export function verdictOf(code: ExitCode): 'pass' | 'fail' | 'bad-input' | 'unknown' {
  return code === EXIT.ok ? 'pass' : code === EXIT.expectationFailed ? 'fail' : code === EXIT.badInput ? 'bad-input' : 'unknown';
}

/** The fields every document starts with: the command, its verdict and exit code. */
export function documentHead(command: string, code: ExitCode): { command: string; verdict: string; exitCode: ExitCode; exitMeaning: string } {
  return { command, verdict: verdictOf(code), exitCode: code, exitMeaning: EXIT_MEANING[code] };
}

export interface JsonStdout {
  /** Writes the document on the real stdout (once) and gives stdout back. */
  write(doc: unknown): void;
  /** Gives stdout back without a document (bad input, a crash: stdout stays empty). */
  restore(): void;
}

/**
 * Diverts stdout to stderr until the document is written. Child processes never write to the
 * CLI's stdout (brokers and workers log to their files), so this is every writer there is.
 */
export function divertStdout(): JsonStdout {
  const stdout = process.stdout;
  const original = stdout.write;
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    stdout.write = original;
  };
  return {
    write(doc) {
      restore();
      stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    },
    restore,
  };
}

/** Runs `work` with stdout diverted when `json` is set; `work` gets the writer (undefined without --json). */
export async function withJsonStdout(json: boolean | undefined, work: (out: JsonStdout | undefined) => Promise<void>): Promise<void> {
  const out = json ? divertStdout() : undefined;
  try {
    await work(out);
  } finally {
    out?.restore();
  }
}
