/**
 * Fault windows: a fault owns the time from its start to its end plus a settle time, so an
 * anomaly caused by the fault but surfacing shortly after it still counts as "during" it.
 */
import type { FaultWindow, WindowInput } from './types.ts';
import type { FaultMark } from './history-columns.ts';

export const DEFAULT_SETTLE_MS = 5000;

/**
 * Pairs the history's start/end marks per fault name into instances. Marks of one name are
 * taken in time order (a start before an end at the same time); nested starts extend the
 * instance until the matching number of ends.
 */
export function faultWindows(marks: readonly FaultMark[], settleMicros: number, extra: readonly WindowInput[] = []): FaultWindow[] {
  const byName = new Map<string, FaultMark[]>();
  for (const m of marks) {
    let list = byName.get(m.name);
    if (!list) byName.set(m.name, (list = []));
    list.push(m);
  }
  const out: FaultWindow[] = [];
  for (const [name, list] of byName) {
    list.sort((a, b) => a.at - b.at || (a.phase === b.phase ? 0 : a.phase === 'start' ? -1 : 1));
    const kind = firstKind(list);
    let depth = 0;
    let start: number | null = null;
    for (const m of list) {
      if (m.phase === 'start') {
        if (depth === 0) start = m.at;
        depth++;
      } else if (depth > 0) {
        depth--;
        if (depth === 0) {
          out.push(window(name, kind, start, m.at, settleMicros));
          start = null;
        }
      } else {
        // An end with no start: the fault was already on when the history begins.
        out.push(window(name, kind, null, m.at, settleMicros));
      }
    }
    if (depth > 0) out.push(window(name, kind, start, null, settleMicros));
  }
  for (const w of extra) out.push(window(w.name, w.kind ?? null, w.start, w.end, settleMicros));
  out.sort(
    (a, b) =>
      (a.start ?? -Infinity) - (b.start ?? -Infinity) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
      (a.end ?? Infinity) - (b.end ?? Infinity),
  );
  return out;
}

function firstKind(list: FaultMark[]): string | null {
  // Deterministic whatever the line order: the smallest kind named at the earliest time.
  let best: FaultMark | null = null;
  for (const m of list) {
    if (m.kind === null) continue;
    if (!best || m.at < best.at || (m.at === best.at && best.kind !== null && m.kind < best.kind)) best = m;
  }
  return best ? best.kind : null;
}

function window(name: string, kind: string | null, start: number | null, end: number | null, settle: number): FaultWindow {
  return { name, kind, start, end, until: end === null ? null : end + settle };
}

/** Whether time t falls in one of the named fault's windows (start to end + settle). */
export function inFault(windows: readonly FaultWindow[], name: string, t: number): boolean {
  for (const w of windows) {
    if (w.name !== name) continue;
    if (t >= (w.start ?? -Infinity) && t <= (w.until ?? Infinity)) return true;
  }
  return false;
}

/** The first moment the named fault was on, or null when it never occurred. */
export function faultStart(windows: readonly FaultWindow[], name: string): number | null {
  let first: number | null = null;
  for (const w of windows) {
    if (w.name !== name) continue;
    const s = w.start ?? -Infinity;
    if (first === null || s < first) first = s;
  }
  return first;
}

/** When the named fault's last window closes (+Infinity if it never ended), or null. */
export function faultUntil(windows: readonly FaultWindow[], name: string): number | null {
  let last: number | null = null;
  for (const w of windows) {
    if (w.name !== name) continue;
    const u = w.until ?? Infinity;
    if (last === null || u > last) last = u;
  }
  return last;
}
