/**
 * The result envelope (results/schema/result.v1.json): run identity, verdict, anomalies,
 * expectations, and an open set of later sections (workload, latency, timeline, ...). Later
 * versions add sections; none changes the meaning of an existing field.
 */
import { convoyVersion } from '../convoy-version.ts';
import type { CheckOutcome } from './checker.ts';
import type { ExpectationResult, Verdict } from './expectations.ts';
import { redactSecrets } from './redact.ts';
import type { EnvelopeShape } from './result-schema.ts';
import type { Anomalies, BrokerRemaining, FaultWindow, InputStats } from './types.ts';

export { redactSecrets, redactString, registerSecret, REDACTED } from './redact.ts';

export const RESULT_SCHEMA = 'convoy.result.v1';

// The shapes come from the result's one source (result-schema.ts), as do the published schema's.
export type Versions = EnvelopeShape['versions'];

export type RunIdentity = Pick<EnvelopeShape, 'runId' | 'seed' | 'versions' | 'started' | 'finished'> & {
  /** The resolved scenario (redacted). */
  scenario: Record<string, unknown> | null;
};

/** How the check itself went: its input and the fault windows it used. */
export type CheckSection = NonNullable<EnvelopeShape['check']>;

/**
 * A result as built: the envelope, and the later sections by name. Anomalies and expectations
 * keep the checker's own, narrower types (the schema also admits results written before a
 * field was added).
 */
export type ConvoyResult = Omit<EnvelopeShape, 'scenario' | 'anomalies' | 'expectations'> &
  RunIdentity & { anomalies: Anomalies; expectations: ExpectationResult[]; [section: string]: unknown };

export interface ResultInput {
  run?: Omit<Partial<RunIdentity>, 'versions'> & { versions?: Partial<Versions> };
  verdict: Verdict;
  anomalies: Anomalies;
  expectations: ExpectationResult[];
  check?: CheckSection;
  /** Later sections by name (workload, latency, timeline, environment, ...). */
  sections?: Record<string, Record<string, unknown>>;
}

const RESERVED = new Set(['schema', 'runId', 'seed', 'scenario', 'versions', 'started', 'finished', 'verdict', 'anomalies', 'expectations', 'check']);

/**
 * Assembles a result. Run identity and extra sections are redacted; anomalies and
 * expectations are the checker's own output and are kept as they are.
 */
export function buildResult(input: ResultInput): ConvoyResult {
  const run = input.run ?? {};
  const identity = redactSecrets({
    runId: run.runId ?? null,
    seed: run.seed ?? null,
    scenario: run.scenario ?? null,
    versions: {
      convoy: run.versions?.convoy ?? convoyVersion(),
      node: run.versions?.node ?? process.version,
      brokers: run.versions?.brokers ?? {},
      clients: run.versions?.clients ?? {},
      ...(run.versions?.client ? { client: run.versions.client } : {}),
      ...(run.versions?.cluster ? { cluster: run.versions.cluster } : {}),
    },
    started: run.started ?? null,
    finished: run.finished ?? null,
  });
  const result: ConvoyResult = {
    schema: RESULT_SCHEMA,
    ...identity,
    verdict: input.verdict,
    anomalies: input.anomalies,
    expectations: input.expectations,
  };
  if (input.check) result.check = input.check;
  for (const [name, section] of Object.entries(input.sections ?? {})) {
    if (RESERVED.has(name)) throw new Error(`result section "${name}" would overwrite a core field`);
    result[name] = redactSecrets(section);
  }
  return result;
}

/** The check section for a checker outcome. */
export function checkSection(outcome: CheckOutcome, history: string | null = null): CheckSection {
  return { history, settleMs: outcome.settleMs, input: outcome.input, faults: outcome.faults, remaining: outcome.remaining, ...(outcome.clocks.length > 0 ? { clocks: outcome.clocks } : {}) };
}

export { convoyVersion };
