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
import { applyChange, changeAt, changeEvent, changeStateAt, type EntityChange, type EntitySpec } from './changes.ts';
import { entityEvent, entityStateAt, type EntityKind, type EntityState } from './entity-state.ts';

export type { EntityChange, EntitySpec };
export { ENTITY_KINDS, entityEvent, entityStateAt, type EntityKind, type EntityState } from './entity-state.ts';

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
  const keys = Object.keys(state);
  // Already in order (the usual case: the entities build their states so): the same text
  // without a sorted copy, which a consumer made once per message. A key V8 puts first
  // because it is an array index ("10" before "9") shows up here as out of order.
  let inOrder = true;
  for (let i = 1; i < keys.length && inOrder; i++) inOrder = keys[i - 1]! < keys[i]!;
  if (inOrder) return JSON.stringify(state);
  const sorted: EntityState = {};
  for (const k of keys.sort()) sorted[k] = state[k];
  return JSON.stringify(sorted);
}
