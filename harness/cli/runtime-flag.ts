import { RUNTIME_KINDS, type RuntimeKind } from '../broker/contract.ts';
import { InputError } from '../errors.ts';

/**
 * `--runtime`, checked. In a module of its own so that a command that only checks scenarios
 * (`convoy validate`) does not load the runner, the report and the checker with `run`.
 */
export function checkRuntime(runtime: string): RuntimeKind {
  if (!(RUNTIME_KINDS as readonly string[]).includes(runtime)) throw new InputError(`--runtime: expected one of ${RUNTIME_KINDS.join(', ')}; got "${runtime}"`);
  return runtime as RuntimeKind;
}
