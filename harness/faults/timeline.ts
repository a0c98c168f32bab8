import { nowMicros } from '../clock.ts';
import { InputError } from '../errors.ts';
import type { HistoryWriter } from '../history/writer.ts';
import { onCleanup } from '../runtime/cleanup.ts';
import type { FaultSpec } from '../spec/types.ts';
import type { FaultContext, FaultKind, StartedFault } from './contract.ts';

export interface FaultRecord {
  name: string;
  kind: string;
  plannedStartUs: number;
  plannedEndUs: number;
  startUs?: number;
  endUs?: number;
  evidence?: unknown;
  endEvidence?: unknown;
  error?: string;
}

/**
 * Runs the scenario's faults at their offsets from the start of the measured phase. Each
 * start and end is written to the history with its evidence; each started fault registers
 * its undo with the clean-up, so an interrupted run leaves nothing behind.
 */
export class FaultTimeline {
  readonly records: FaultRecord[] = [];
  private timers: NodeJS.Timeout[] = [];
  private active = new Map<string, { fault: StartedFault; unregister: () => void }>();
  private pending = new Set<Promise<void>>();

  constructor(
    private readonly specs: FaultSpec[],
    private readonly kinds: Map<string, FaultKind>,
    private readonly ctx: FaultContext,
    private readonly history: HistoryWriter,
  ) {
    for (const s of specs) {
      const kind = kinds.get(s.kind);
      if (!kind) throw new InputError(`faults.${s.name}.kind: unknown fault kind "${s.kind}"; expected one of ${[...kinds.keys()].join(', ')}`);
      if (kind.destructive && ctx.runtime === 'external' && !ctx.allowDestructive) {
        throw new InputError(`fault ${s.name} (${s.kind}) changes or hurts the target broker: refused on the external runtime without --allow-destructive`);
      }
    }
  }

  /** Schedules every fault relative to `originUs` (the measured phase's start). */
  schedule(originUs: number): void {
    for (const spec of this.specs) {
      const rec: FaultRecord = { name: spec.name, kind: spec.kind, plannedStartUs: originUs + spec.atMs * 1000, plannedEndUs: originUs + (spec.atMs + spec.durationMs) * 1000 };
      this.records.push(rec);
      const delay = Math.max(0, (rec.plannedStartUs - nowMicros()) / 1000);
      this.timers.push(setTimeout(() => this.track(this.begin(spec, rec)), delay));
    }
  }

  private track(p: Promise<void>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private async begin(spec: FaultSpec, rec: FaultRecord): Promise<void> {
    const kind = this.kinds.get(spec.kind)!;
    rec.startUs = nowMicros();
    try {
      const fault = await kind.start(spec, this.ctx);
      rec.evidence = fault.evidence;
      const unregister = onCleanup(`undo fault ${spec.name}`, () => this.finish(spec, rec));
      this.active.set(spec.name, { fault, unregister });
      this.history.write({ type: 'fault', name: spec.name, kind: spec.kind, phase: 'start', at: rec.startUs, evidence: fault.evidence });
      this.ctx.log(`fault ${spec.name} (${spec.kind}) started`);
      const delay = Math.max(0, (rec.plannedEndUs - nowMicros()) / 1000);
      this.timers.push(setTimeout(() => this.track(this.finish(spec, rec)), delay));
    } catch (err) {
      rec.error = (err as Error).message;
      this.ctx.log(`fault ${spec.name} (${spec.kind}) could not start: ${rec.error}`);
      this.history.write({ type: 'fault', name: spec.name, kind: spec.kind, phase: 'start', at: rec.startUs, evidence: { error: rec.error } });
      this.history.write({ type: 'fault', name: spec.name, kind: spec.kind, phase: 'end', at: nowMicros(), evidence: { error: rec.error } });
      rec.endUs = nowMicros();
    }
  }

  private async finish(spec: FaultSpec, rec: FaultRecord): Promise<void> {
    const entry = this.active.get(spec.name);
    if (!entry) return;
    this.active.delete(spec.name);
    entry.unregister();
    try {
      rec.endEvidence = await entry.fault.end();
      const unexercised = (rec.endEvidence as { unexercised?: unknown } | undefined)?.unexercised;
      if (typeof unexercised === 'string') rec.error = `it never acted: ${unexercised}`;
    } catch (err) {
      rec.error = `undo failed: ${(err as Error).message}`;
      this.ctx.log(`fault ${spec.name}: ${rec.error}`);
    }
    rec.endUs = nowMicros();
    this.history.write({ type: 'fault', name: spec.name, kind: spec.kind, phase: 'end', at: rec.endUs, evidence: rec.endEvidence });
    this.ctx.log(`fault ${spec.name} (${spec.kind}) ended`);
  }

  /** Every fault that failed to start or to be undone. */
  failures(): FaultRecord[] {
    return this.records.filter((r) => r.error);
  }

  /** Cancels what has not started and undoes what is active (end of run or interruption). */
  async stop(): Promise<void> {
    this.timers.forEach(clearTimeout);
    this.timers = [];
    await Promise.allSettled([...this.pending]);
    for (const [name] of [...this.active]) {
      const spec = this.specs.find((s) => s.name === name)!;
      const rec = this.records.find((r) => r.name === name)!;
      await this.finish(spec, rec);
    }
  }

  /** True while some fault window is still open or planned later than `atUs`. */
  busyAfter(atUs: number): boolean {
    return this.records.some((r) => r.plannedEndUs > atUs) || this.active.size > 0;
  }
}
