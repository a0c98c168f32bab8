/**
 * Checks of `workload.producers[].resend`: a trigger is set, the ack timeout
 * is in range, and the broker's adapter can make a re-send happen at all. Each problem is a
 * `<path>: ...` line.
 */
import type { BrokerCapabilities } from '../broker/contract.ts';
import type { Scenario } from '../spec/types.ts';

/** The longest ack timeout a re-send may wait for (10 minutes). */
export const MAX_ACK_TIMEOUT_MS = 600_000;

export function resendProblems(s: Scenario, raw: Record<string, any>, capabilities: BrokerCapabilities | undefined): string[] {
  const problems: string[] = [];
  s.workload.producers.forEach((p, i) => {
    const r = p.resend;
    if (!r) return;
    const path = `workload.producers[${i}].resend`;
    const written = raw.workload?.producers?.[i]?.resend?.ackTimeoutMs;
    if (r.ackTimeoutMs !== undefined && !(r.ackTimeoutMs >= 1 && r.ackTimeoutMs <= MAX_ACK_TIMEOUT_MS)) {
      problems.push(`${path}.ackTimeoutMs: expected a duration from 1 ms to 10 min, got ${JSON.stringify(written ?? r.ackTimeoutMs)}`);
    }
    if (r.ackTimeoutMs === undefined && !r.onUnknown) problems.push(`${path}: expected ackTimeoutMs or onUnknown: true, got neither (nothing would be re-sent)`);
    const can = capabilities?.resend ?? true;
    if (can !== true) problems.push(`${path}: ${s.broker.kind} cannot honour it: ${can}`);
  });
  return problems;
}
