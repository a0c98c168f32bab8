/**
 * The suite's exit code: the worst of its scenarios. Infrastructure (3, a broken run) over bad
 * input (2, a scenario that did not load) over a failed expectation (1) over pass (0).
 */
import { EXIT, type ExitCode } from '../errors.ts';

const RANK: Record<ExitCode, number> = { [EXIT.ok]: 0, [EXIT.expectationFailed]: 1, [EXIT.badInput]: 2, [EXIT.infrastructure]: 3 };

export function worstExitCode(codes: Iterable<ExitCode>): ExitCode {
  let worst: ExitCode = EXIT.ok;
  for (const c of codes) if (RANK[c] > RANK[worst]) worst = c;
  return worst;
}
