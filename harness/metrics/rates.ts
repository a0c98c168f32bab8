/**
 * Rates by time scope: how many messages were due (the open-loop schedule), sent and handled
 * per second, outside every fault window, within or around one fault, or over the whole
 * sending phase. Thresholds on throughput read these; a scope's target is what the schedule
 * asked for in it, so `>=0.95 of target` compares like with like when the rate has steps.
 */
/** A fault's window on the run's clock (the collector's windows fit it). */
interface Window {
  name: string;
  startUs: number;
  endUs: number;
}

export interface ScopeRates {
  /** Seconds of the sending phase in the scope. */
  seconds: number;
  /** Messages per second the schedule asked for (intended send times). */
  target: number;
  /** Messages per second sent. */
  sent: number;
  /** Messages per second handled (outcome ok), as their handling ended. */
  processed: number;
}

export type FaultRelation = 'before' | 'during' | 'after' | 'outside';
const RELATIONS: FaultRelation[] = ['before', 'during', 'after', 'outside'];

export interface RatesSection {
  /** The sending phase: from the start of the measured phase to the last message due. */
  fromUs: number;
  toUs: number;
  whole: ScopeRates;
  outsideFaults: ScopeRates;
  faults: ({ fault: string } & Record<FaultRelation, ScopeRates>)[];
}

interface Span { from: number; to: number }

export class RateLedger {
  private intended: number[] = [];
  private sent: number[] = [];
  private processed: number[] = [];

  constructor(private readonly measureStartUs: number, private readonly windows: readonly Window[], private readonly settleUs: number) {}

  due(atUs: number): void { this.intended.push(atUs); }
  send(atUs: number): void { this.sent.push(atUs); }
  handled(atUs: number): void { this.processed.push(atUs); }

  section(): RatesSection {
    const from = this.measureStartUs;
    let to = from;
    for (const t of this.intended) if (t > to) to = t;
    const faults = this.windows.map((w) => ({ from: w.startUs, to: w.endUs + this.settleUs }));
    const inAny = (t: number) => faults.some((f) => t >= f.from && t < f.to);
    const whole = this.scope([{ from, to }], () => true);
    const outsideFaults = this.scope(subtract({ from, to }, faults), (t) => !inAny(t));
    return {
      fromUs: from,
      toUs: to,
      whole,
      outsideFaults,
      faults: this.windows.map((w, i) => {
        const f = faults[i];
        const spans: Record<FaultRelation, Span[]> = {
          before: [{ from, to: Math.min(to, f.from) }],
          during: [{ from: Math.max(from, f.from), to: Math.min(to, f.to) }],
          after: [{ from: Math.max(from, f.to), to }],
          outside: subtract({ from, to }, [f]),
        };
        const keep: Record<FaultRelation, (t: number) => boolean> = {
          before: (t) => t < f.from,
          during: (t) => t >= f.from && t < f.to,
          after: (t) => t >= f.to,
          outside: (t) => t < f.from || t >= f.to,
        };
        return { fault: w.name, ...Object.fromEntries(RELATIONS.map((r) => [r, this.scope(spans[r], keep[r])])) } as RatesSection['faults'][number];
      }),
    };
  }

  private scope(spans: Span[], keep: (t: number) => boolean): ScopeRates {
    const us = spans.reduce((n, s) => n + Math.max(0, s.to - s.from), 0);
    const seconds = us / 1e6;
    // Spans end inclusive, so the last message due counts; `keep` settles a fault's edges.
    const inScope = (t: number) => keep(t) && spans.some((s) => t >= s.from && t <= s.to);
    const rate = (times: number[]) => {
      if (seconds <= 0) return 0;
      let n = 0;
      for (const t of times) if (inScope(t)) n++;
      return round(n / seconds);
    };
    return { seconds: round(seconds), target: rate(this.intended), sent: rate(this.sent), processed: rate(this.processed) };
  }
}

/** The parts of `span` outside every one of `cuts`. */
function subtract(span: Span, cuts: readonly Span[]): Span[] {
  let parts: Span[] = [span];
  for (const c of cuts) {
    parts = parts.flatMap((p) => {
      if (c.to <= p.from || c.from >= p.to) return [p];
      const out: Span[] = [];
      if (c.from > p.from) out.push({ from: p.from, to: c.from });
      if (c.to < p.to) out.push({ from: c.to, to: p.to });
      return out;
    });
  }
  return parts;
}

const round = (x: number) => Math.round(x * 1000) / 1000;
