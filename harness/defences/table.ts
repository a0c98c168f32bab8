/**
 * The defences table's data (docs/defences.json, schema convoy.defences.v1), from the runs'
 * result.json files only. Per cell (column x strategy), over its known runs: keys left in a
 * wrong final state (median, range) and their share of the keys, skipped and rejected messages,
 * the strategy's own figures (ConsumerStrategy.figures: each becomes a column), and the costs
 * measured in the consumer processes: store time per message (what the strategy adds to the
 * handler), throughput (messages handled per second of the consumers' busy window) and store
 * writes per message (SQLite rows changed, total_changes). `unknown` runs are listed, never
 * counted. Every number names its runs, their seeds and the commit that produced them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPlan } from '../matrix/plan.ts';
import { readDone } from '../matrix/run-matrix.ts';
import { spread, type Spread } from '../matrix/stats.ts';
import type { ConsumerPhases } from '../workers/phases.ts';
import { DEFENCE_AXIS, STRATEGY_AXIS, columnDir, type Column } from './columns.ts';

export const DEFENCES_SCHEMA = 'convoy.defences.v1';

export interface CellRun {
  runId: string;
  seed: number;
  verdict: string;
}

export interface DefenceCell {
  column: string;
  /** The row: a strategy, or a concurrency mode (DefencesData.modes). */
  strategy: string;
  /** False when the strategy does not fit the column's entity (nothing ran). */
  fits: boolean;
  unfit?: string;
  runs: CellRun[];
  known: number;
  keys: Spread | null;
  wrong: Spread | null;
  /** Wrong keys / keys, per run. */
  wrongShare: Spread | null;
  runsWrong: number;
  skipped: Spread | null;
  rejected: Spread | null;
  figures: Record<string, Spread | null>;
  cost: DefenceCost;
}

/**
 * What a cell's strategy cost. The last four come from the live strategy's own costs (result
 * `finalState.<live>.costs`, harness/consumer/strategies/costs.ts) and are absent from data
 * written before they existed.
 */
export interface DefenceCost {
  storeMsPerMessage: Spread | null;
  messagesPerSecond: Spread | null;
  writesPerMessage: Spread | null;
  /** Messages the strategy held back (the resequencer), per run; 0 for one that never holds. */
  heldMessages?: Spread | null;
  /** The highest resident memory of a consumer process, MiB. */
  peakRssMiB?: Spread | null;
  /** Reads of the owner service per message handled (notification; the resequencer's fetches). */
  readsPerMessage?: Spread | null;
  /** p99 of the latency holding added to released messages, ms; absent for a strategy that never held one. */
  addedLatencyP99Ms?: Spread | null;
}

export interface DefencesData {
  schema: typeof DEFENCES_SCHEMA;
  created: string;
  commit: string;
  repeats: number;
  seed: number;
  wallTimeMs: number | null;
  /** Each column, its file relative to the working folder the command ran in. */
  columns: Column[];
  /** Every strategy of the catalogue, in its order, then every defence mode. */
  rows: string[];
  /** The rows that are concurrency modes, each with its `defence` line (absent before modes joined). */
  modes?: Record<string, string>;
  /** Names of the strategies' own figures (extra columns), with what they count. */
  figures: Record<string, string>;
  cells: DefenceCell[];
}

interface RunCosts {
  counts?: Record<string, number>;
  peaks?: Record<string, number>;
  latency?: Record<string, { count?: number; p99?: number }>;
}

interface RunResult {
  verdict?: { status?: string };
  workload?: { finalState?: Record<string, { primary?: boolean; wrong?: number; keys?: number; effects?: Record<string, number>; figures?: Record<string, number>; costs?: RunCosts }> };
  harness?: { consumers?: Record<string, { storeWrites?: number; phases?: ConsumerPhases }> };
  consumers?: { mode?: string; strategy?: string; costs?: { conflated?: number; messagesPerTransaction?: number } };
}

/** A mode row's own figures, from the run's `consumers.costs`. */
export const MODE_FIGURES: Record<string, string> = {
  conflated: 'messages dropped unhandled because a newer one of their key superseded them (mode conflate)',
  'messages per transaction': 'applied messages per store transaction (mode batch: a key\'s queued messages share one)',
};

/** One run's figures for its row: the strategy it ran live, or the mode it ran (judged by the run's own strategy). */
export function runFigures(r: RunResult, row: string) {
  const strategy = r.consumers?.strategy ?? row;
  const s = r.workload?.finalState?.[strategy];
  const costs = r.consumers?.mode === row ? r.consumers.costs : undefined;
  const modeFigures = costs ? { conflated: costs.conflated ?? NaN, 'messages per transaction': costs.messagesPerTransaction ?? NaN } : {};
  const consumers = Object.values(r.harness?.consumers ?? {});
  const deliveries = consumers.reduce((n, c) => n + (c.phases?.deliveries ?? 0), 0);
  const storeMs = consumers.reduce((n, c) => n + (c.phases?.storeMs ?? 0), 0);
  const writes = consumers.reduce((n, c) => n + (c.storeWrites ?? 0), 0);
  const firsts = consumers.map((c) => c.phases?.firstUs ?? 0).filter((x) => x > 0);
  const lasts = consumers.map((c) => c.phases?.lastUs ?? 0).filter((x) => x > 0);
  const busyS = firsts.length && lasts.length ? (Math.max(...lasts) - Math.min(...firsts)) / 1e6 : 0;
  return {
    keys: s?.keys ?? NaN,
    wrong: s?.wrong ?? NaN,
    wrongShare: s && s.keys ? (s.wrong ?? 0) / s.keys : NaN,
    skipped: s?.effects?.skipped ?? NaN,
    rejected: s?.effects?.rejected ?? NaN,
    figures: { ...(s?.figures ?? {}), ...modeFigures } as Record<string, number>,
    storeMsPerMessage: deliveries ? storeMs / deliveries : NaN,
    messagesPerSecond: busyS > 0 ? deliveries / busyS : NaN,
    writesPerMessage: deliveries && consumers.some((c) => c.storeWrites !== undefined) ? writes / deliveries : NaN,
    ...strategyCostFigures(s?.costs, deliveries),
  };
}

/** The defences table's figures from a run's strategy costs (NaN: not measured in that run). */
export function strategyCostFigures(costs: RunCosts | undefined, deliveries: number) {
  const added = costs?.latency?.addedLatency;
  return {
    heldMessages: costs ? (costs.counts?.held ?? 0) : NaN,
    peakRssMiB: costs?.peaks?.peakRssBytes !== undefined ? costs.peaks.peakRssBytes / 1048576 : NaN,
    readsPerMessage: costs && deliveries ? (costs.counts?.ownerReads ?? 0) / deliveries : NaN,
    addedLatencyP99Ms: added?.count && added.p99 !== undefined ? added.p99 / 1000 : NaN,
  };
}

/** The cells of one column from its matrix folder (a row with no folder or no runs yet: no runs). */
export function columnCells(runDir: string, column: Column, allRows: string[], figureNames: string[]): DefenceCell[] {
  const dir = columnDir(runDir, column);
  const plan = existsSync(join(dir, 'plan.json')) ? readPlan(dir) : undefined;
  const done = plan ? readDone(dir) : [];
  return allRows.map((strategy): DefenceCell => {
    const base = { column: column.name, strategy };
    const empty = { runs: [], known: 0, keys: null, wrong: null, wrongShare: null, runsWrong: 0, skipped: null, rejected: null, figures: {}, cost: { storeMsPerMessage: null, messagesPerSecond: null, writesPerMessage: null, heldMessages: null, peakRssMiB: null, readsPerMessage: null, addedLatencyP99Ms: null } };
    if (!column.rows.includes(strategy)) return { ...base, fits: false, unfit: column.unfit[strategy], ...empty };
    const cell = plan?.cells.find((c) => (c.values[DEFENCE_AXIS] ?? c.values[STRATEGY_AXIS]) === strategy);
    const runs = cell ? done.filter((d) => d.cell === cell.id).sort((a, b) => a.slot - b.slot) : [];
    const loaded = runs.map((d) => {
      const file = join(dir, d.dir, 'result.json');
      const result = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as RunResult) : { verdict: { status: 'unknown' } };
      return { d, result, status: result.verdict?.status ?? 'unknown' };
    });
    const known = loaded.filter((l) => l.status !== 'unknown').map((l) => runFigures(l.result, strategy));
    const of = (pick: (f: ReturnType<typeof runFigures>) => number) => spread(known.map(pick));
    return {
      ...base, fits: true,
      runs: loaded.map((l) => ({ runId: l.d.runId, seed: l.d.seed, verdict: l.status })),
      known: known.length,
      keys: of((f) => f.keys), wrong: of((f) => f.wrong), wrongShare: of((f) => f.wrongShare),
      runsWrong: known.filter((f) => f.wrong > 0).length,
      skipped: of((f) => f.skipped), rejected: of((f) => f.rejected),
      figures: Object.fromEntries(figureNames.map((n) => [n, known.some((f) => n in f.figures) ? of((f) => f.figures[n] ?? NaN) : null])),
      cost: {
        storeMsPerMessage: of((f) => f.storeMsPerMessage), messagesPerSecond: of((f) => f.messagesPerSecond), writesPerMessage: of((f) => f.writesPerMessage),
        heldMessages: of((f) => f.heldMessages), peakRssMiB: of((f) => f.peakRssMiB), readsPerMessage: of((f) => f.readsPerMessage), addedLatencyP99Ms: of((f) => f.addedLatencyP99Ms),
      },
    };
  });
}
