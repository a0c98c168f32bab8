import type { RuntimeKind } from '../broker/contract.ts';
import { InputError } from '../errors.ts';

/**
 * `--runtime`, checked. In a module of its own so that a command that only checks scenarios
 * (`convoy validate`) does not load the runner, the report and the checker with `run`.
 */
export function checkRuntime(runtime: string): RuntimeKind {
  if (!['local', 'containers', 'external'].includes(runtime)) throw new InputError(`--runtime: expected one of local, containers, external; got "${runtime}"`);
  return runtime as RuntimeKind;
}
