/**
 * A run's drain bounds, plain arithmetic: the broker's redelivery horizon plus a margin, capped
 * by the scenario's run.drainTimeoutMs. The runner drains by it (harness/runner/drain-rules.ts);
 * the suite rules check a scenario's cap against it.
 */

/** Added to the horizon: a message given back at the horizon still has to be handled. */
export const DRAIN_MARGIN_MS = 5_000;

export interface DrainPlan {
  horizonMs: number;
  capMs: number | null;
}

/** The drain's bounds for a broker horizon (ms, before the margin) and the scenario's cap. */
export function drainPlan(brokerHorizonMs: number, capMs: number | undefined): DrainPlan {
  return { horizonMs: brokerHorizonMs + DRAIN_MARGIN_MS, capMs: capMs ?? null };
}

/** The longest the drain can take under a plan. */
export function drainBoundMs(plan: DrainPlan): number {
  return plan.capMs === null ? plan.horizonMs : Math.min(plan.capMs, plan.horizonMs);
}
