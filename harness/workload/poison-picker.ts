import type { PoisonSpec } from '../spec/types.ts';
import type { Rng } from './rng.ts';

/**
 * Which messages are poison: a seeded share of them, or every message of the given keys.
 *
 * Returns a function deciding, message by message in plan order, whether a message is poison.
 * It draws exactly one number per call whatever the spec, so the poison stream stays aligned.
 */
export function poisonPicker(spec: PoisonSpec | undefined, rng: Rng): (key: string) => boolean {
  if (!spec) return () => false;
  const share = spec.share ?? 0;
  const keys = new Set(spec.keys ?? []);
  return (key) => {
    const u = rng.next();
    return keys.has(key) || u < share;
  };
}

