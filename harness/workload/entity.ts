/**
 * Entity lifecycles. Every key is one entity; message seq s of a key carries version s and the
 * event that made it, and stands for the entity's whole state after that event
 * (event-carried state transfer). Applying a message therefore replaces the stored state with
 * the message's, which is what makes a consumer's strategy visible: applying an older message
 * after a newer one leaves the older state behind.
 *
 *   order    1 PLACED, 2 PAID, 3 SHIPPED, 4 DELIVERED, then ADDRESS_CHANGED (odd versions)
 *            and NOTE_ADDED (even versions) for ever; status stays DELIVERED.
 *   wallet   CREDIT and DEBIT in turn, amounts from a per-key table of 8; state is the balance.
 *   counter  INCREMENT; state is the count (= version).
 *
 * The state at any version is computed in O(1) from (kind, key, version), so producers and
 * consumers need no history and the truth needs no replay.
 *
 * These are the default events (`workload.entity.events: state`). Events that carry only
 * their change are in changes.ts; stateAt, eventAt and truth take either.
 */
import { hash32 } from './rng.ts';
import { applyChange, changeAt, changeEvent, changeStateAt, type EntityChange, type EntitySpec } from './changes.ts';

export type { EntityChange, EntitySpec };

export type EntityKind = 'order' | 'wallet' | 'counter';
export const ENTITY_KINDS: readonly EntityKind[] = ['order', 'wallet', 'counter'];

export type EntityState = Record<string, string | number>;

const ORDER_STEPS = ['PLACED', 'PAID', 'SHIPPED', 'DELIVERED'] as const;

/** The event that takes an entity of this kind to `version` (version ≥ 1). */
export function entityEvent(kind: EntityKind, version: number): string {
  if (!(version >= 1)) return 'NONE';
  switch (kind) {
    case 'order':
      if (version <= ORDER_STEPS.length) return ORDER_STEPS[version - 1];
      return version % 2 === 1 ? 'ADDRESS_CHANGED' : 'NOTE_ADDED';
    case 'wallet':
      return version % 2 === 1 ? 'CREDIT' : 'DEBIT';
    case 'counter':
      return 'INCREMENT';
  }
}

/** Wallet amounts: a per-key table of 8 movements (credits 10..80, debits 5..40). */
function walletTable(key: string): { amounts: number[]; prefix: number[]; period: number } {
  const h = hash32(key, 0x77616c6c);
  const amounts: number[] = [];
  for (let j = 0; j < 8; j++) {
    const nib = (h >>> (4 * j)) & 7;
    amounts.push(j % 2 === 0 ? (nib + 1) * 10 : -(nib + 1) * 5);
  }
  const prefix = [0];
  for (const a of amounts) prefix.push(prefix[prefix.length - 1] + a);
  return { amounts, prefix, period: prefix[8] };
}

/** The full state of entity `key` after `version` events (version ≥ 1), without the version. */
export function entityStateAt(kind: EntityKind, key: string, version: number): EntityState {
  switch (kind) {
    case 'order': {
      const status = ORDER_STEPS[Math.min(version, ORDER_STEPS.length) - 1];
      const total = ((hash32(key, 0x6f726472) % 9900) + 100) / 100; // 1.00 .. 99.99
      // ADDRESS_CHANGED at 5, 7, 9...; NOTE_ADDED at 6, 8, 10...
      const lastAddress = version >= 5 ? (version % 2 === 1 ? version : version - 1) : 0;
      const notes = version >= 6 ? Math.floor((version - 4) / 2) : 0;
      return { status, total, address: `addr-${lastAddress}`, notes };
    }
    case 'wallet': {
      const t = walletTable(key);
      const full = Math.floor(version / 8);
      const rest = version % 8;
      const last = t.amounts[(version - 1) % 8];
      return { balance: full * t.period + t.prefix[rest], last };
    }
    case 'counter':
      return { count: version };
  }
}

/** What the store keeps for a key. */
export interface VersionedState {
  version: number;
  state: EntityState;
}

export interface TruthMessage {
  key: string;
  seq: number;
  producer?: string;
  /** The ack outcome: false only when the send definitely failed; true, null or absent otherwise. */
  ok?: boolean | null;
}

/** workload.entity with its defaults: today's whole-state events unless it says `change`. */
function specOf(entity: EntityKind | EntitySpec): EntitySpec {
  return typeof entity === 'string' ? { kind: entity, events: 'state', cancelShare: 0 } : entity;
}

/** The state of `key` after its events 1..version (version ≥ 1), for either kind of event. */
export function stateAt(entity: EntityKind | EntitySpec, key: string, version: number): EntityState {
  const spec = specOf(entity);
  return spec.events === 'change' ? changeStateAt(spec, key, version) : entityStateAt(spec.kind, key, version);
}

/** The name of event `version` of `key`, for either kind of event. */
export function eventAt(entity: EntityKind | EntitySpec, key: string, version: number): string {
  const spec = specOf(entity);
  return spec.events === 'change' ? changeEvent(spec, key, version) : entityEvent(spec.kind, version);
}

/**
 * What message `version` of `key` carries, as a change: with whole-state events it sets every
 * field (so applying it replaces the state), with change events only its own.
 */
export function eventContent(entity: EntityKind | EntitySpec, key: string, version: number): EntityChange {
  const spec = specOf(entity);
  return spec.events === 'change' ? changeAt(spec, key, version) : { event: entityEvent(spec.kind, version), set: entityStateAt(spec.kind, key, version) };
}

/**
 * The final state per key: applying, in seq order, every message whose send did not
 * definitely fail. A whole-state message makes that the state of the highest such seq. With
 * change events it is the same when no seq below the highest was refused (O(1) per key);
 * otherwise the key's changes are folded, skipping the refused ones (O(seqs) for that key).
 * (If several producers write one key, versions are compared by seq alone.)
 */
export function truth(entity: EntityKind | EntitySpec, messages: Iterable<TruthMessage>): Map<string, VersionedState> {
  const spec = specOf(entity);
  const top = new Map<string, number>();
  const refused = new Map<string, Set<number>>();
  for (const m of messages) {
    if (m.ok === false) {
      if (!refused.has(m.key)) refused.set(m.key, new Set());
      refused.get(m.key)!.add(m.seq);
      continue;
    }
    const cur = top.get(m.key);
    if (cur === undefined || m.seq > cur) top.set(m.key, m.seq);
  }
  const out = new Map<string, VersionedState>();
  for (const key of [...top.keys()].sort()) {
    const v = top.get(key)!;
    const gaps = spec.events === 'change' ? [...(refused.get(key) ?? [])].filter((s) => s < v) : [];
    if (gaps.length === 0) {
      out.set(key, { version: v, state: stateAt(spec, key, v) });
      continue;
    }
    const skip = new Set(gaps);
    let state: EntityState | undefined;
    for (let s = 1; s <= v; s++) if (!skip.has(s)) state = applyChange(state, changeAt(spec, key, s));
    out.set(key, { version: v, state: state! });
  }
  return out;
}

/** A canonical JSON text for a state (sorted keys), for storage and comparison. */
export function stateJson(state: EntityState): string {
  const sorted: EntityState = {};
  for (const k of Object.keys(state).sort()) sorted[k] = state[k];
  return JSON.stringify(sorted);
}
