import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { FaultKind } from './contract.ts';

const DIR = fileURLToPath(new URL('./', import.meta.url));
const NOT_KINDS = new Set(['contract.ts', 'registry.ts', 'timeline.ts']);

/** Every fault kind: one file each in this folder (or in `dir`, for tests). */
export async function faultKinds(dir = DIR): Promise<Map<string, FaultKind>> {
  const kinds = new Map<string, FaultKind>();
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.ts') && !NOT_KINDS.has(f)).sort()) {
    const mod = (await import(join(dir, f))) as { default?: FaultKind };
    if (mod.default?.kind) kinds.set(mod.default.kind, mod.default);
  }
  return kinds;
}
