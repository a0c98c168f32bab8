/**
 * The default events' states (`workload.entity.events: state`, event-carried state transfer):
 * the event that takes an entity to a version, and its whole state after it, in O(1) from
 * (kind, key, version). See entity.ts for the lifecycles; changes.ts builds its deltas on
 * these, so they live apart from entity.ts (which picks between the two).
 */
import { hash32 } from './rng.ts';

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
