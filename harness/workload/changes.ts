/**
 * Entities whose events carry only their own change (`workload.entity.events: change`), where
 * entity.ts's default events carry the whole state. Message seq s of a key is the entity's
 * event s; both the change and the state after it are computed in O(1) from (spec, key, s).
 *
 *   order    1 PLACED {status, customer, city}, 2 ADDRESS_CHANGED {city}, then either
 *            3 PAID, 4 SHIPPED, 5 DELIVERED, or (a share of orders, `cancelShare`, chosen by a
 *            hash of the key) 3 CANCELLED. CANCELLED and DELIVERED end the lifecycle; after
 *            the end come NOTE_ADDED {note} events, for keys that get more messages.
 *   wallet   CREDIT / DEBIT with a signed amount (the same per-key table as entity.ts) added
 *            to the balance: a delta.
 *   counter  INCREMENT by 1: a delta.
 *
 * A change sets fields (`set`) or adds to them (`add`); `applyChange` is the fold.
 */
import { hash32 } from './rng.ts';
import { entityStateAt, type EntityKind, type EntityState } from './entity.ts';

export type EntityEvents = 'state' | 'change';

/** workload.entity as the scenario resolves it. */
export interface EntitySpec {
  kind: EntityKind;
  events: EntityEvents;
  /** Share of orders that take the CANCELLED branch (change events only). */
  cancelShare: number;
}

export interface EntityChange {
  event: string;
  set?: EntityState;
  add?: Record<string, number>;
}

const CITIES = ['Izmir', 'Ankara', 'Pune', 'Mumbai', 'Bursa', 'Delhi', 'Lyon', 'Porto'];

/** True when this order takes the CANCELLED branch. */
export function cancels(spec: Pick<EntitySpec, 'cancelShare'>, key: string): boolean {
  return hash32(key, 0x63616e63) / 2 ** 32 < spec.cancelShare;
}

function orderFacts(key: string): { customer: string; placedCity: string; movedCity: string } {
  const h = hash32(key, 0x63697479);
  const a = h % CITIES.length;
  const b = (a + 1 + ((h >>> 8) % (CITIES.length - 1))) % CITIES.length; // never the same city
  return { customer: `cust-${(h >>> 16) % 1000}`, placedCity: CITIES[a], movedCity: CITIES[b] };
}

/** The last version of the order's lifecycle proper (CANCELLED or DELIVERED). */
function orderEnd(spec: EntitySpec, key: string): number {
  return cancels(spec, key) ? 3 : 5;
}

function orderEvent(spec: EntitySpec, key: string, v: number): string {
  if (v === 1) return 'PLACED';
  if (v === 2) return 'ADDRESS_CHANGED';
  if (v > orderEnd(spec, key)) return 'NOTE_ADDED';
  if (cancels(spec, key)) return 'CANCELLED';
  return ['PAID', 'SHIPPED', 'DELIVERED'][v - 3];
}

/** The status after version v (v ≥ 1). */
export function orderStatusAt(spec: EntitySpec, key: string, v: number): string {
  if (v <= 2) return 'PLACED';
  const last = Math.min(v, orderEnd(spec, key));
  return orderEvent(spec, key, last);
}

/** The name of event v (v ≥ 1) of `key`. */
export function changeEvent(spec: EntitySpec, key: string, v: number): string {
  switch (spec.kind) {
    case 'order':
      return orderEvent(spec, key, v);
    case 'wallet':
      return v % 2 === 1 ? 'CREDIT' : 'DEBIT';
    case 'counter':
      return 'INCREMENT';
  }
}

/** What event v (v ≥ 1) of `key` changes. */
export function changeAt(spec: EntitySpec, key: string, v: number): EntityChange {
  const event = changeEvent(spec, key, v);
  switch (spec.kind) {
    case 'order': {
      const f = orderFacts(key);
      if (event === 'PLACED') return { event, set: { status: event, customer: f.customer, city: f.placedCity } };
      if (event === 'ADDRESS_CHANGED') return { event, set: { city: f.movedCity } };
      if (event === 'NOTE_ADDED') return { event, set: { note: `note-${v}` } };
      return { event, set: { status: event } };
    }
    case 'wallet':
      return { event, add: { balance: entityStateAt('wallet', key, v).last as number } };
    case 'counter':
      return { event, add: { count: 1 } };
  }
}

/** The state after events 1..v in order (v ≥ 1), in O(1). */
export function changeStateAt(spec: EntitySpec, key: string, v: number): EntityState {
  switch (spec.kind) {
    case 'order': {
      const f = orderFacts(key);
      const state: EntityState = { status: orderStatusAt(spec, key, v), customer: f.customer, city: v >= 2 ? f.movedCity : f.placedCity };
      if (v > orderEnd(spec, key)) state.note = `note-${v}`;
      return state;
    }
    case 'wallet':
      return { balance: entityStateAt('wallet', key, v).balance };
    case 'counter':
      return { count: v };
  }
}

/** `state` (undefined: nothing yet) after `change`; a new object. */
export function applyChange(state: EntityState | undefined, change: EntityChange): EntityState {
  const out: EntityState = { ...state, ...change.set };
  for (const [field, n] of Object.entries(change.add ?? {})) out[field] = (Number(out[field]) || 0) + n;
  return out;
}

/** True when every event of this entity is a delta (adds, sets nothing): commutative. */
export function eventsAreDeltas(spec: EntitySpec): boolean {
  return spec.events === 'change' && (spec.kind === 'wallet' || spec.kind === 'counter');
}
