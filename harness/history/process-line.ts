/**
 * A consumer's process event as JSON text written directly: the very line JSON.stringify gives
 * for an event built by harness/roles/consumer/process-event.ts (its fields in that order, an
 * undefined one left out), at a fraction of its cost. The consumer writes one per message, and
 * the generic stringify was about a quarter of what convoy adds per message to its client's cost.
 */
import type { ProcessEvent } from './events.ts';
import { num } from './producer-lines.ts';

const q = JSON.stringify;

/**
 * The JSON of strings that repeat from line to line (producer names, the consumer, lanes), made
 * once each; at most `limit` remembered, so a run of many distinct names costs no memory.
 */
class Names {
  private readonly known = new Map<string, string>();
  constructor(private readonly limit = 4096) {}

  of(s: string): string {
    let json = this.known.get(s);
    if (json === undefined) {
      json = q(s);
      if (this.known.size < this.limit) this.known.set(s, json);
    }
    return json;
  }
}
const names = new Names();

/**
 * JSON.stringify(ev) for a process event whose fields are in processEvent's order (type, key,
 * producer, seq, consumer, lane, offset, deliveryCount, intended, stamp, received, start, end,
 * outcome, effect, then batch and held); any of them may be absent. Events whose fields were
 * built in another order (a spread that adds `held`) go through JSON.stringify.
 */
export function processLine(ev: ProcessEvent): string {
  let s = `{"type":"process","key":${ev.key === null ? 'null' : q(ev.key)},"producer":${ev.producer === null ? 'null' : names.of(ev.producer)},"seq":${ev.seq === null ? 'null' : num(ev.seq)},"consumer":${names.of(ev.consumer)}`;
  if (ev.lane !== undefined) s += `,"lane":${names.of(ev.lane)}`;
  if (ev.offset !== undefined) s += `,"offset":${num(ev.offset)}`;
  if (ev.deliveryCount !== undefined) s += `,"deliveryCount":${num(ev.deliveryCount)}`;
  if (ev.intended !== undefined) s += `,"intended":${num(ev.intended)}`;
  if (ev.stamp !== undefined) s += `,"stamp":${num(ev.stamp)}`;
  s += `,"received":${num(ev.received)},"start":${num(ev.start)}`;
  if (ev.end !== undefined) s += `,"end":${num(ev.end)}`;
  // Literal unions: no character in them needs escaping.
  if (ev.outcome !== undefined) s += `,"outcome":"${ev.outcome}"`;
  if (ev.effect !== undefined) s += `,"effect":"${ev.effect}"`;
  if (ev.batch !== undefined) s += `,"batch":${num(ev.batch)}`;
  if (ev.held !== undefined) s += `,"held":${num(ev.held)}`;
  return s + '}';
}
