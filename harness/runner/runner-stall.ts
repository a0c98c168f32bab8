/**
 * The runner watching its own event loop. When the run's broker or the entities' owner service
 * lives in the runner process (an in-process broker such as the memory broker; harness/owner/),
 * a runner that cannot run (a starved machine) stops the run as a whole: nothing is delivered,
 * no owner answers, no fault starts or ends on time. A fault window the runner spent mostly
 * stalled was never exercised, so an expectation about it can be neither met nor missed: the
 * run is `unknown`, as when the harness cannot keep the target rate.
 */
import { nowMicros } from '../clock.ts';
import type { FaultRecord } from '../faults/timeline.ts';

/** How often the watch looks, and the least lateness counted as a stall. */
const TICK_MS = 50;
const MIN_STALL_MS = 100;
/** A fault window with at least this share stalled was not exercised. */
export const MAX_STALLED_SHARE = 0.5;

export interface Stall {
  fromUs: number;
  toUs: number;
}

export class RunnerStallWatch {
  readonly stalls: Stall[] = [];
  private lastUs = nowMicros();
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => this.look(), TICK_MS);
    this.timer.unref();
  }

  private look(): void {
    const now = nowMicros();
    const dueUs = this.lastUs + TICK_MS * 1000;
    if (now - dueUs >= MIN_STALL_MS * 1000) this.stalls.push({ fromUs: dueUs, toUs: now });
    this.lastUs = now;
  }

  /** Stops watching (a stall still under way when the loop runs again is counted). */
  stop(): Stall[] {
    clearInterval(this.timer);
    this.look();
    return this.stalls;
  }
}

/**
 * One reason per fault whose window the runner spent at least MAX_STALLED_SHARE stalled. The
 * window is the planned one or the actual one, whichever is wider: a stall that delays a
 * fault's start also shortens what is left of it.
 */
export function unexercisedWindows(faults: FaultRecord[], stalls: Stall[], runEndUs: number): string[] {
  const out: string[] = [];
  for (const f of faults) {
    const fromUs = Math.min(f.plannedStartUs, f.startUs ?? Infinity);
    const toUs = Math.max(f.plannedEndUs, f.endUs ?? (f.startUs !== undefined ? runEndUs : 0));
    if (toUs <= fromUs) continue;
    const stalledUs = stalls.reduce((n, s) => n + Math.max(0, Math.min(s.toUs, toUs) - Math.max(s.fromUs, fromUs)), 0);
    if (stalledUs >= MAX_STALLED_SHARE * (toUs - fromUs)) {
      const ms = (us: number) => Math.round(us / 1000);
      out.push(`the runner's event loop stalled ${ms(stalledUs)} ms of fault ${f.name}'s ${ms(toUs - fromUs)} ms window (the runner serves this run's broker or owner): the window was not exercised`);
    }
  }
  return out;
}
