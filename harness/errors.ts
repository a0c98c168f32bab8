/** Exit codes shared by every command. CI tells a broken run from a failed check by these. */
export const EXIT = {
  ok: 0,
  expectationFailed: 1,
  badInput: 2,
  infrastructure: 3,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error meant for the user: one clear message, an exit code, optional detail lines. */
export class ConvoyError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly detail: string[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ConvoyError';
  }
}

/** Unusable input: a bad scenario, a bad flag, a malformed history line. Exit 2. */
export class InputError extends ConvoyError {
  constructor(message: string, detail: string[] = [], options?: { cause?: unknown }) {
    super(message, EXIT.badInput, detail, options);
    this.name = 'InputError';
  }
}

/** The infrastructure failed: a broker would not start, a tool is missing. Exit 3. */
export class InfraError extends ConvoyError {
  constructor(message: string, detail: string[] = [], options?: { cause?: unknown }) {
    super(message, EXIT.infrastructure, detail, options);
    this.name = 'InfraError';
  }
}
