/**
 * The analysis of an order-service run (harness/runner/analyze.ts calls it): the result's
 * `gateway` section, the truth from the service's store, the request rate against the one
 * asked for (a run that could not reach it is incomplete: unknown), and the
 * `duplicate-versions` expectation.
 */
import { join } from 'node:path';
import { countHolds, type Expected, type ExpectationResult, type Verdict } from '../checker/expectations.ts';
import type { GatewaySection } from '../checker/result-schema.ts';
import type { Scenario } from '../spec/types.ts';
import type { WorkerStats } from '../workers/protocol.ts';
import { DUPLICATE_VERSIONS_EXPECTATION } from '../spec/sections.ts';
import type { ExpectationSpec } from '../spec/types.ts';
import type { VersionedState } from '../workload/entity.ts';
import { gatewayMode } from './registry.ts';
import { AUTOCANNON_LIMITS, MIN_REQUEST_RATE_SHARE, autocannonSummary, duplicateVersions, httpFigures, storeTruth, type DuplicateVersions } from './figures.ts';

/** What the analysis reads of a run's record (harness/runner/record.ts has it all). */
export interface GatewayRunRecord {
  scenario: Scenario;
  runDir: string;
  historyFile: string;
  startUs: number;
  gaveUp: unknown;
  gateway?: { driver: WorkerStats; services: Record<string, WorkerStats>; storeFile: string };
}

export async function gatewayFigures(
  record: GatewayRunRecord,
  marks: { name: string; detail?: unknown }[],
  incomplete: string[],
): Promise<{ section: GatewaySection; truth: Map<string, VersionedState> | undefined }> {
  const { scenario } = record;
  const g = scenario.workload.gateway!;
  const store = storeTruth(record.gateway?.storeFile ?? join(record.runDir, 'orders.sqlite'), scenario);
  const summary = autocannonSummary(marks) as { requestsPerSecond?: { p50?: number }; errors?: number; timeouts?: number } | null;
  const asked = scenario.workload.rate.kind === 'fixed' ? scenario.workload.rate.perSecond : 0;
  // autocannon counts answers per whole second of its run: the median second is the rate it
  // held (its total over its duration counts the last, partial second as a whole one).
  const achieved = summary?.requestsPerSecond?.p50 ?? null;
  const reqs = record.gateway?.driver.requests ?? { sent: 0, ok: 0, failed: 0 };
  if (record.startUs > 0 && !record.gaveUp) {
    if (achieved === null) incomplete.push('the load driver recorded no autocannon summary');
    else if (achieved < asked * MIN_REQUEST_RATE_SHARE) incomplete.push(`the load driver could not keep the target rate: reached ${achieved} requests/s of ${asked}/s`);
    if (summary?.errors || summary?.timeouts) incomplete.push(`autocannon saw ${summary.errors ?? 0} connection errors and ${summary.timeouts ?? 0} timeouts`);
    if (reqs.failed > 0) incomplete.push(`${reqs.failed} of ${reqs.sent} requests to the order service failed (non-2xx or no answer)`);
  }
  const mode = gatewayMode(g.mode);
  const section: GatewaySection = {
    mode: g.mode,
    instances: g.instances,
    connections: g.connections,
    relays: mode.relay ? Object.keys(record.gateway?.services ?? {}).filter((id) => id.startsWith('relay-')).length : 0,
    duplicateVersions: await duplicateVersions(record.historyFile),
    requests: { asked, achieved, ...reqs },
    http: httpFigures(marks),
    autocannon: { summary, limits: AUTOCANNON_LIMITS },
    store: store ? { orders: store.orders, events: store.events } : null,
  };
  return { section, truth: store?.truth };
}

/** `duplicate-versions: 0 | ">0" | any`, judged over the whole run like an anomaly count. */
export function judgeDuplicateVersions(spec: ExpectationSpec | ExpectationSpec[] | undefined, found: DuplicateVersions | null, expectations: ExpectationResult[], verdict: Verdict): void {
  if (spec === undefined) return;
  const one = Array.isArray(spec) ? spec[0] : spec;
  const expected = String(typeof one === 'object' ? one.expect : one) as Expected;
  const count = found?.count ?? null;
  const held = expected === 'any' ? true : count === null ? null : countHolds(expected, count);
  (expectations as unknown as Record<string, unknown>[]).push({ type: DUPLICATE_VERSIONS_EXPECTATION, expected, window: null, found: count, keys: found?.keys ?? null, held, source: 'given' });
  if (held === false) {
    verdict.reasons.unshift(`${DUPLICATE_VERSIONS_EXPECTATION}: expected ${expected}, found ${count} (${found?.keys ?? 0} keys)`);
    verdict.status = 'fail';
  } else if (held === null) {
    verdict.reasons.push(`${DUPLICATE_VERSIONS_EXPECTATION}: no send event carried a version`);
    if (verdict.status === 'pass') verdict.status = 'unknown';
  }
}
