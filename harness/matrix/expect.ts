/**
 * Expectations across cells: "reorders appear in at least 90% of the runs where
 * mode: unordered". Judged over the runs of every matching cell together. An `unknown` run
 * could have gone either way: the expectation holds (or fails) only when it does for every
 * way the unknown runs could have gone; otherwise it is `unknown` (exit 3), never a pass.
 */
import { InputError } from '../errors.ts';
import { matches } from './cells.ts';
import { parseShare, type MatrixExpectation } from './file.ts';
import type { PlannedCell } from './plan.ts';

export interface ExpectationOutcome extends MatrixExpectation {
  status: 'held' | 'failed' | 'unknown';
  cells: string[];
  /** Known runs in which it appeared, known runs, unknown runs. */
  appeared: number;
  known: number;
  unknown: number;
  /** appeared / known (null with no known run). */
  found: number | null;
  reason: string;
}

/** Per cell and expectation: whether the thing appeared in each known run, and the unknown count. */
export interface CellOutcomes {
  /** Per known run: did the anomaly (or a wrong final state) appear. */
  appeared(cell: string, anomaly: string): boolean[];
  unknownRuns(cell: string): number;
}

function compare(op: string, x: number, v: number): boolean {
  const eps = 1e-9;
  switch (op) {
    case '>=': return x >= v - eps;
    case '<=': return x <= v + eps;
    case '>': return x > v + eps;
    case '<': return x < v - eps;
    default: return Math.abs(x - v) <= eps;
  }
}

/** Every expectation's `where` must pick at least one cell (checked before anything runs). */
export function checkExpectationScopes(file: string, expect: MatrixExpectation[], cells: Pick<PlannedCell, 'values' | 'label'>[]): void {
  const problems = expect.flatMap((e, i) => (cells.some((c) => matches(c.values, e.where)) ? [] : [`expect[${i}].where: matches no cell of the matrix (after exclude)`]));
  if (problems.length) throw new InputError(`${file}: invalid matrix (${problems.length} ${problems.length === 1 ? 'problem' : 'problems'})`, problems);
}

export function judgeExpectations(expect: MatrixExpectation[], cells: PlannedCell[], outcomes: CellOutcomes): ExpectationOutcome[] {
  return expect.map((e) => {
    const scope = cells.filter((c) => matches(c.values, e.where));
    const seen = scope.flatMap((c) => outcomes.appeared(c.id, e.anomaly));
    const unknown = scope.reduce((n, c) => n + outcomes.unknownRuns(c.id), 0);
    const appeared = seen.filter(Boolean).length;
    const known = seen.length;
    const total = known + unknown;
    const { op, value } = parseShare(e.share)!;
    const base = { ...e, cells: scope.map((c) => c.id), appeared, known, unknown, found: known ? appeared / known : null };
    const what = `${e.anomaly} in ${appeared} of ${known} runs${unknown ? ` (${unknown} unknown)` : ''}`;
    if (total === 0) return { ...base, status: 'unknown' as const, reason: 'no run of these cells finished' };
    // The share if every unknown run had not shown it, and if every one had.
    const low = compare(op, appeared / total, value);
    const high = compare(op, (appeared + unknown) / total, value);
    if (known === 0) return { ...base, status: 'unknown' as const, reason: `every run of these cells was unknown` };
    if (low && high) return { ...base, status: 'held' as const, reason: `${what}: share ${e.share} held` };
    const between = op === '=' && appeared / total < value && value < (appeared + unknown) / total;
    if (!low && !high && !between) return { ...base, status: 'failed' as const, reason: `${what}: expected share ${e.share}` };
    return { ...base, status: 'unknown' as const, reason: `${what}: the unknown runs decide whether share ${e.share} holds` };
  });
}
