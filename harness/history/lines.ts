/**
 * The history's hot events as JSON text written directly: the producer's two per message (send
 * and ack) and the consumer's one per handling (process). Each is the very line JSON.stringify
 * gives for the event object (same fields, same order), at about half its CPU cost, spent at
 * tens of thousands of events a second.
 */
import type { ProcessEvent } from './events.ts';

const q = JSON.stringify;

/** `{"type":"send","key":…,"producer":…,"seq":…,"at":…,"intended":…,"process":…,"size":…}` */
export function sendLine(key: string, producer: string, seq: number, at: number, intended: number, process: string, size: number, entity?: string, resend?: number): string {
  return `{"type":"send","key":${q(key)},"producer":${q(producer)},"seq":${num(seq)},"at":${num(at)},"intended":${num(intended)},"process":${q(process)},"size":${num(size)}${entity === undefined ? '' : `,"entity":${q(entity)}`}${resend === undefined ? '' : `,"resend":${num(resend)}`}}`;
}

/** A written message's ack: `{"type":"ack",…,"ok":true,"lane":…,"offset":…,"sent":…}`; lane and offset may be absent. */
export function ackLine(key: string, producer: string, seq: number, at: number, lane: string | undefined, offset: number | undefined, sent: number): string {
  return (
    `{"type":"ack","key":${q(key)},"producer":${q(producer)},"seq":${num(seq)},"at":${num(at)},"ok":true` +
    (lane === undefined ? '' : `,"lane":${q(lane)}`) +
    (offset === undefined ? '' : `,"offset":${num(offset)}`) +
    `,"sent":${num(sent)}}`
  );
}

/**
 * A handling's event, for events made as the consumer makes them (roles/consumer/process-event.ts):
 * fields in that order, the optional ones after when set.
 */
export function processLine(ev: ProcessEvent): string {
  let s = `{"type":"process","key":${ev.key === null ? 'null' : q(ev.key)},"producer":${ev.producer === null ? 'null' : q(ev.producer)},"seq":${ev.seq === null ? 'null' : num(ev.seq)},"consumer":${q(ev.consumer)}`;
  if (ev.lane !== undefined) s += `,"lane":${q(ev.lane)}`;
  if (ev.offset !== undefined) s += `,"offset":${num(ev.offset)}`;
  if (ev.deliveryCount !== undefined) s += `,"deliveryCount":${num(ev.deliveryCount)}`;
  if (ev.intended !== undefined) s += `,"intended":${num(ev.intended)}`;
  if (ev.stamp !== undefined) s += `,"stamp":${num(ev.stamp)}`;
  s += `,"received":${num(ev.received)},"start":${num(ev.start)}`;
  if (ev.end !== undefined) s += `,"end":${num(ev.end)}`;
  if (ev.outcome !== undefined) s += `,"outcome":"${ev.outcome}"`;
  if (ev.effect !== undefined) s += `,"effect":"${ev.effect}"`;
  if (ev.batch !== undefined) s += `,"batch":${num(ev.batch)}`;
  if (ev.held !== undefined) s += `,"held":${num(ev.held)}`;
  return s + '}';
}

/**
 * A number as JSON writes it (non-finite numbers become null). Microsecond times (~1.7e15)
 * are past V8's small-integer fast path: printed as two halves below 1e8 they cost a third.
 */
function num(n: number): string {
  if (n >= 2147483648 && n <= Number.MAX_SAFE_INTEGER && Number.isInteger(n)) {
    const hi = Math.floor(n / 1e8);
    return String(hi) + String(n - hi * 1e8).padStart(8, '0');
  }
  return Number.isFinite(n) ? String(n) : 'null';
}
