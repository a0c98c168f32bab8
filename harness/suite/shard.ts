/**
 * A suite split over several machines (`convoy suite --shard 2/6`): each takes a share of the
 * scenarios, balanced by what each is planned to take, so that CI can run a long suite as jobs
 * side by side and build one dashboard from all their run folders afterwards.
 */
import { InputError } from '../errors.ts';

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** "2/6" -> { index: 2, count: 6 }; anything else is one line of bad input. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) throw new InputError(`--shard ${JSON.stringify(text)}: expected <i>/<n> with 1 <= i <= n, e.g. 2/6`);
  return { index, count };
}

/**
 * What a run costs beyond its planned sending: brokers made ready, the drain, the check and the
 * report. A rough figure; it only weighs scenarios against each other.
 */
export const RUN_OVERHEAD_MS = 20_000;

/**
 * The items of one shard, in their given order. Longest first, each to the shard with the least
 * planned time so far (ties: the lower shard), so the shards end at about the same time; the
 * same items always give the same split, on every machine.
 */
export function shardOf<T>(items: readonly T[], weightMs: (item: T) => number, shard: Shard): T[] {
  const load = new Array<number>(shard.count).fill(0);
  const owner = new Map<T, number>();
  const byWeight = items.map((item, i) => ({ item, i, w: weightMs(item) })).sort((a, b) => b.w - a.w || a.i - b.i);
  for (const { item, w } of byWeight) {
    let least = 0;
    for (let s = 1; s < shard.count; s++) if (load[s]! < load[least]!) least = s;
    owner.set(item, least);
    load[least]! += w;
  }
  return items.filter((item) => owner.get(item) === shard.index - 1);
}
