/**
 * Entities whose events carry only their own change (`workload.entity.events: change`), where
 * entity.ts's default events carry the whole state. Message seq s of a key is the entity's
 * event s; both the change and the state after it are computed in O(1) from (spec, key, s).
 *
 *   order    1 PLACED {status, customer, city}, 2 ADDRESS_CHANGED {status, city}, then either
 *            3 PAID, 4 ADDRESS_CHANGED, 5 SHIPPED, 6 DELIVERED, or (a share of orders,
 *            `cancelShare`, chosen by a hash of the key) 3 CANCELLED.
 *            CANCELLED and DELIVERED end the lifecycle; after the end come NOTE_ADDED {note}
 *            events (no status), for keys that get more messages. Every lifecycle event
 *            carries the status the order has after it, so a late address
 *            change pulls a cancelled plan back to "ready to ship"; notes carry none, so a
 *            status pulled back stays back.
 *   wallet   CREDIT / DEBIT with a signed amount (the same per-key table as entity.ts) added
 *            to the balance: a delta.
 *   counter  INCREMENT by 1: a delta.
 *
 * A change sets fields (`set`) or adds to them (`add`); `applyChange` is the fold.
 */
import { hash32 } from './rng.ts';
import { entityStateAt, type EntityKind, type EntityState } from './entity-state.ts';

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

function orderFacts(key: string): { customer: string; cities: [string, string, string] } {
  const h = hash32(key, 0x63697479);
  const a = h % CITIES.length;
  // Three different cities: where it was placed, the first move, the second.
  const b = (a + 1 + ((h >>> 8) % 3)) % CITIES.length;
  const c = (a + 4 + ((h >>> 12) % 3)) % CITIES.length;
  return { customer: `cust-${(h >>> 16) % 1000}`, cities: [CITIES[a], CITIES[b], CITIES[c]] };
}

const ORDER_STEPS = ['PLACED', 'ADDRESS_CHANGED', 'PAID', 'ADDRESS_CHANGED', 'SHIPPED', 'DELIVERED'] as const;
const CANCELLED_STEPS = ['PLACED', 'ADDRESS_CHANGED', 'CANCELLED'] as const;

function orderSteps(spec: EntitySpec, key: string): readonly string[] {
  return cancels(spec, key) ? CANCELLED_STEPS : ORDER_STEPS;
}

function orderEvent(spec: EntitySpec, key: string, v: number): string {
  const steps = orderSteps(spec, key);
  return v <= steps.length ? steps[v - 1] : 'NOTE_ADDED';
}

/** The status after version v (v ≥ 1): that of the last status-changing event so far. */
export function orderStatusAt(spec: EntitySpec, key: string, v: number): string {
  const steps = orderSteps(spec, key);
  for (let i = Math.min(v, steps.length) - 1; i >= 0; i--) if (steps[i] !== 'ADDRESS_CHANGED') return steps[i];
  return 'PLACED';
}

/** The city after version v (v ≥ 1): the last address change's. */
function orderCityAt(spec: EntitySpec, key: string, v: number): string {
  const f = orderFacts(key);
  if (v >= 4 && !cancels(spec, key)) return f.cities[2];
  return v >= 2 ? f.cities[1] : f.cities[0];
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
      const status = orderStatusAt(spec, key, v);
      if (event === 'PLACED') return { event, set: { status, customer: orderFacts(key).customer, city: orderCityAt(spec, key, v) } };
      if (event === 'ADDRESS_CHANGED') return { event, set: { status, city: orderCityAt(spec, key, v) } };
      if (event === 'NOTE_ADDED') return { event, set: { note: `note-${v}` } };
      return { event, set: { status } };
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
      const state: EntityState = { status: orderStatusAt(spec, key, v), customer: orderFacts(key).customer, city: orderCityAt(spec, key, v) };
      if (v > orderSteps(spec, key).length) state.note = `note-${v}`;
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
