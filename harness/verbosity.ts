/**
 * How much of an error a person sees. By default one line; stack traces only with --verbose
 * or CONVOY_DEBUG=1 (they always go to the run's log file). Workers inherit the environment.
 */
export function verbose(): boolean {
  return process.env.CONVOY_DEBUG === '1';
}

export function setVerbose(): void {
  process.env.CONVOY_DEBUG = '1';
}

/** The error's message, or its stack when verbose. */
export function debugDetail(err: Error): string {
  return verbose() ? (err.stack ?? err.message) : err.message;
}
