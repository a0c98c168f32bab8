/**
 * The entity-level order check for split keys (workload.keys.split): the checker orders each
 * sub-key, which is all the broker promises once a key is split; this says what is then out of
 * order for the entity as a whole. Per entity, its applies in commit order (`end`): an apply is
 * out of order when an apply of a later version of the entity committed before it.
 */
export interface EntityOrder {
  /** Sub-keys per entity. */
  split: number;
  entities: number;
  /** Applies that committed after an apply of a later version of their entity. */
  outOfOrder: number;
  /** Entities with at least one. */
  entitiesOutOfOrder: number;
  /** A few of them, lowest names first, with their first out-of-order pair. */
  examples: { entity: string; version: number; after: number }[];
}

export function entityOrder(applies: Iterable<{ key: string; seq: number; end: number }>, split: number, examples = 5): EntityOrder {
  const byEntity = new Map<string, { seq: number; end: number }[]>();
  for (const a of applies) {
    let list = byEntity.get(a.key);
    if (!list) byEntity.set(a.key, (list = []));
    list.push(a);
  }
  let outOfOrder = 0;
  const bad: EntityOrder['examples'] = [];
  for (const [entity, list] of byEntity) {
    list.sort((a, b) => a.end - b.end);
    let top = 0;
    let first: { version: number; after: number } | undefined;
    for (const a of list) {
      if (a.seq < top) {
        outOfOrder++;
        first ??= { version: a.seq, after: top };
      }
      top = Math.max(top, a.seq);
    }
    if (first) bad.push({ entity, ...first });
  }
  bad.sort((a, b) => a.entity.localeCompare(b.entity, 'en', { numeric: true }));
  return { split, entities: byEntity.size, outOfOrder, entitiesOutOfOrder: bad.length, examples: bad.slice(0, examples) };
}
