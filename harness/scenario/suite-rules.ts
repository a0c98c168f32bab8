/**
 * The suite's rules on time: a nightly scenario plans at most 90 s (warm-up + sending + drain)
 * unless run.maxDurationMs says more, a drain cap shorter than the broker's redelivery horizon
 * is worth a warning, and an expectation scoped to a fault needs a fault that can start inside
 * the run.
 */
import { intendedSchedule } from '../workload/schedule.ts';
import { drainBoundMs, drainPlan } from './drain-plan.ts';
import type { Scenario } from '../spec/types.ts';
import { WINDOW_RELATIONS } from '../checker/anomaly-types.ts';
import { isObject, show } from './values.ts';
import { secs } from '../duration.ts';

/** The nightly suite's bound on warm-up + duration + drain timeout, unless run.maxDurationMs says more. */
export const NIGHTLY_LIMIT_MS = 90_000;

/**
 * An expectation scoped to a fault must be able to see that fault: it starts before the run's
 * traffic is over (sending, then the drain timeout; as in durationWarnings) and before the
 * run's hard bound stops everything.
 */
export function windowsInsideRun(s: Scenario, brokerHorizonMs: number): string[] {
  const sending = plannedSendingMs(s);
  const errors: string[] = [];
  const lastStart = (f: Scenario['faults'][number]): string | undefined => {
    if (s.workload.warmupMs + f.atMs >= s.run.maxDurationMs) {
      return `run.maxDurationMs ${secs(s.run.maxDurationMs)} ends the run before it (warm-up ${secs(s.workload.warmupMs)} + ${secs(f.atMs)})`;
    }
    if (sending === undefined) return undefined;
    // The drain: its cap, or else the broker's redelivery horizon plus margin (as durationWarnings).
    const drainMs = drainBoundMs(drainPlan(brokerHorizonMs, s.run.drainTimeoutMs));
    const end = sending - s.workload.warmupMs + drainMs;
    if (f.atMs >= end) return `the run is over by then (sending ${secs(sending - s.workload.warmupMs)} + drain ${secs(drainMs)} = ${secs(end)} into the measured phase)`;
    return undefined;
  };
  for (const [type, specs] of Object.entries(s.expect)) {
    (Array.isArray(specs) ? specs : [specs]).forEach((spec, i) => {
      if (!isObject(spec)) return;
      for (const k of WINDOW_RELATIONS) {
        const f = s.faults.find((x) => x.name === (spec as Record<string, unknown>)[k]);
        const why = f && lastStart(f);
        if (f && why) {
          const path = `expect.${type}${Array.isArray(specs) ? `[${i}]` : ''}.${k}`;
          errors.push(`${path}: fault ${show(f.name)} starts at ${secs(f.atMs)}, which cannot happen inside the run: ${why}`);
        }
      }
    });
  }
  return errors;
}

/**
 * When the run's traffic is over at the latest, counted as a fault's `atMs` (from the start of
 * the measured phase): the sending, then the drain's bound. Undefined when only the client's
 * speed bounds the sending.
 */
export function runEndMs(s: Scenario, brokerHorizonMs: number): number | undefined {
  const sending = plannedSendingMs(s);
  return sending === undefined ? undefined : sending - s.workload.warmupMs + drainBoundMs(drainPlan(brokerHorizonMs, s.run.drainTimeoutMs));
}

/** Planned time of the workload (warm-up + sending), in ms; undefined when only the client's speed bounds it. */
export function plannedSendingMs(s: Pick<Scenario, 'workload'>): number | undefined {
  const w = s.workload;
  if (w.durationMs !== undefined) {
    let ms = w.warmupMs + w.durationMs;
    if (w.messages !== undefined && w.rate.kind !== 'unlimited') {
      const last = intendedSchedule(w.rate)(w.messages - 1);
      if (last !== null) ms = Math.min(ms, last / 1000);
    }
    return ms;
  }
  if (w.messages === undefined || w.rate.kind === 'unlimited') return undefined;
  const last = intendedSchedule(w.rate)(w.messages - 1);
  return last === null ? undefined : Math.max(w.warmupMs, last / 1000);
}

/**
 * Whether a message can be on its way back to the consumers when the drain ends: only a fault
 * (a stalled, frozen or killed consumer, a cut link, a refused commit ...) or a poison message
 * takes one away from them. Without either the drain ends when every acked message is handled,
 * and its cap never meets the broker's redelivery horizon.
 */
function canRedeliver(s: Scenario): boolean {
  return s.faults.length > 0 || s.consumers.poison !== undefined;
}

export function durationWarnings(s: Scenario, raw: Record<string, any>, brokerHorizonMs: number, horizonSetting?: string): string[] {
  const out: string[] = [];
  const plan = drainPlan(brokerHorizonMs, s.run.drainTimeoutMs);
  const drainMs = drainBoundMs(plan);
  if (plan.capMs !== null && plan.capMs < plan.horizonMs && canRedeliver(s)) {
    const lower = plan.capMs - (plan.horizonMs - brokerHorizonMs);
    const fix = horizonSetting && lower > 0
      ? `to wait for it, set ${horizonSetting} to at most ${secs(lower)} (the horizon is ${secs(brokerHorizonMs)}, plus ${secs(plan.horizonMs - brokerHorizonMs)} to handle it) or raise the cap`
      : 'to wait for it, raise the cap or leave it out';
    out.push(
      `run.drainTimeoutMs ${secs(plan.capMs)} is shorter than the broker's redelivery horizon plus margin (${secs(plan.horizonMs)}): ` +
        `a message its faults send back after the drain is reported unseen and the verdict may be unknown; ${fix}`,
    );
  }
  const sending = plannedSendingMs(s);
  const explicitMax = raw.run?.maxDurationMs !== undefined;
  const limit = explicitMax ? Math.max(NIGHTLY_LIMIT_MS, s.run.maxDurationMs) : NIGHTLY_LIMIT_MS;
  if (sending === undefined) {
    if (!explicitMax) out.push(`planned duration unknown (unlimited rate bounded by a message count); the nightly suite allows ${secs(NIGHTLY_LIMIT_MS)}`);
  } else {
    const planned = sending + drainMs;
    const parts = `warm-up ${secs(s.workload.warmupMs)} + sending ${secs(sending - s.workload.warmupMs)} + drain ${plan.capMs === null ? 'up to the redelivery horizon' : 'timeout'} ${secs(drainMs)}`;
    if (planned > limit) {
      out.push(
        explicitMax
          ? `planned duration ${secs(planned)} (${parts}) is over run.maxDurationMs ${secs(s.run.maxDurationMs)}: the run will be cut short`
          : `planned duration ${secs(planned)} (${parts}) is over the nightly limit of ${secs(NIGHTLY_LIMIT_MS)}; set run.maxDurationMs to allow more`,
      );
    } else if (planned > s.run.maxDurationMs) {
      out.push(`planned duration ${secs(planned)} (${parts}) is over run.maxDurationMs ${secs(s.run.maxDurationMs)}: the run will be cut short`);
    }
    // Faults may act during the drain (a redrive, say), but not past it.
    const end = sending - s.workload.warmupMs + drainMs;
    s.faults.forEach((f, i) => {
      if (f.atMs + f.durationMs > end) {
        out.push(`faults[${i}]: ${f.name} ends at ${secs(f.atMs + f.durationMs)}, after the drain (${secs(end)} into the measured phase)`);
      }
    });
  }
  return out;
}

export { secs };

/**
 * A time written as a bare number is milliseconds; one below a second where seconds are plainly
 * meant is refused with the reason: a workload whose `durationMs: 20` ends before its faults
 * start (20 ms, not 20 s).
 */
export function plainlySeconds(s: Scenario, raw: Record<string, unknown>): string[] {
  const written = (raw.workload as Record<string, unknown> | undefined)?.durationMs;
  if (typeof written !== 'number' || written >= 1000) return [];
  const late = s.faults.filter((f) => f.atMs >= written);
  if (late.length === 0) return [];
  return [
    `workload.durationMs: ${written} is ${written} ms (a number is milliseconds), and the producers stop before ${late.map((f) => `fault ${show(f.name)} at ${secs(f.atMs)}`).join(', ')}; write "${written}s" for seconds`,
  ];
}
