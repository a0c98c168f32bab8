/**
 * Key splitting (`workload.keys.split: N`), for when order is needed only at a finer grain
 * (a match's events per innings): each entity's events go out under N sub-keys,
 * `<entity>/<j>`, in turn (event v under sub-key (v - 1) mod N), so a hot entity spreads over N
 * lanes and N handlers. The sequence is numbered per sub-key (1, 2, ... on each), so the
 * checker, which orders per key, sees no false gaps; order then holds only within a sub-key.
 * The consumers' store and the truth work on the entity and its version (`entityOf`); the
 * history's send events carry the entity beside the key, and the analysis checks order per
 * entity too (entity-order.ts).
 */
export const SPLIT_SEPARATOR = '/';

/** The sub-key and its seq that carry event `version` (from 1) of `entity`. */
export function subKeyOf(entity: string, version: number, parts: number): { key: string; seq: number } {
  const i = version - 1;
  return { key: `${entity}${SPLIT_SEPARATOR}${i % parts}`, seq: Math.floor(i / parts) + 1 };
}

/** The entity and its event version that a (sub-key, seq) carries; itself when not split. */
export function entityOf(key: string, seq: number, parts: number | undefined): { key: string; seq: number } {
  if (!parts || parts < 2) return { key, seq };
  const at = key.lastIndexOf(SPLIT_SEPARATOR);
  const j = Number(key.slice(at + 1));
  if (at < 0 || !Number.isInteger(j)) return { key, seq };
  return { key: key.slice(0, at), seq: (seq - 1) * parts + j + 1 };
}
