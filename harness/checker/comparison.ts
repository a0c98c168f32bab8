/**
 * A bound a measured figure must keep: `<5`, `<=3`, `>0`, `>=0.95`. Anomaly counts and
 * thresholds (latency, throughput) share it, so a bound reads and holds the same everywhere.
 */
export const COMPARISON_OPS = ['<=', '>=', '<', '>', '='] as const;
export type ComparisonOp = (typeof COMPARISON_OPS)[number];

export interface Comparison {
  op: ComparisonOp;
  value: number;
}

/** Splits "<=200ms" into the operator and the text after it; null without an operator. */
export function splitBound(text: string): { op: ComparisonOp; rest: string } | null {
  const t = text.trim();
  const op = COMPARISON_OPS.find((o) => t.startsWith(o));
  return op ? { op, rest: t.slice(op.length).trim() } : null;
}

/** A count bound: "<5", "<=3", ">2", ">=1", "=4" (whole numbers). */
export function parseCountBound(text: string): Comparison | null {
  const b = splitBound(text);
  if (!b || !/^[0-9]+$/.test(b.rest)) return null;
  return { op: b.op, value: Number(b.rest) };
}

export function holds(c: Comparison, x: number): boolean {
  switch (c.op) {
    case '<': return x < c.value;
    case '<=': return x <= c.value;
    case '>': return x > c.value;
    case '>=': return x >= c.value;
    default: return x === c.value;
  }
}

/** A pattern for JSON Schemas: a count bound as text. */
export const COUNT_BOUND_PATTERN = '^\\s*(<=|>=|<|>|=)\\s*[0-9]+\\s*$';
