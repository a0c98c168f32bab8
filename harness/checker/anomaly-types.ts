/**
 * The anomaly types, defined once: their names, the order results list them in, what a
 * scenario expects of each when it says nothing, and the result version that added it. The
 * checker, the scenario schema and its defaults, the result schema and the verdict read this.
 * The names and their meaning are a contract: results are published and compared across runs.
 */

interface AnomalyDefinition {
  /** A scenario that says nothing about the type expects this. */
  expectedByDefault: '0' | 'any';
  /** The result version that added it; results before it lack it and stay valid. */
  since?: string;
}

export const ANOMALIES = {
  lost: { expectedByDefault: '0' },
  unseen: { expectedByDefault: 'any', since: '1.1' },
  abandoned: { expectedByDefault: '0' },
  duplicate: { expectedByDefault: 'any' },
  reorder: { expectedByDefault: '0' },
  regression: { expectedByDefault: 'any' },
  gap: { expectedByDefault: '0' },
  overlap: { expectedByDefault: '0' },
  split: { expectedByDefault: '0' },
  phantom: { expectedByDefault: '0' },
  ghost: { expectedByDefault: '0' },
  'unknown-delivered': { expectedByDefault: 'any' },
  retried: { expectedByDefault: 'any' },
  displaced: { expectedByDefault: 'any' },
} as const satisfies Record<string, AnomalyDefinition>;

export type AnomalyType = keyof typeof ANOMALIES;

/** Every anomaly type, in the order results list them. */
export const ANOMALY_TYPES = Object.keys(ANOMALIES) as readonly AnomalyType[];

/** The types a scenario expects 0 of unless it says otherwise. */
export const DEFAULT_EXPECTED_ZERO: readonly AnomalyType[] = ANOMALY_TYPES.filter((t) => ANOMALIES[t].expectedByDefault === '0');

/** How an expectation can be scoped to a fault's window: within it, anywhere but it, before it starts, after it ends. */
export const WINDOW_RELATIONS = ['during', 'outside', 'before', 'after'] as const;
export type WindowRelation = (typeof WINDOW_RELATIONS)[number];

export function isAnomalyType(s: string): s is AnomalyType {
  return Object.hasOwn(ANOMALIES, s);
}
