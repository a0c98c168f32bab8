import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { FaultKind } from './contract.ts';
import { isModuleFile, moduleFile, moduleName } from '../module-ext.ts';

const DIR = fileURLToPath(new URL('./', import.meta.url));
const NOT_KINDS = new Set(['contract', 'registry', 'timeline'].map(moduleFile));

/**
 * Every fault kind: one file each in this folder (or in `dir`, for tests), named after its
 * kind. `only`: just these kinds (a worker loads the kinds its scenario names, not all).
 */
export async function faultKinds(dir = DIR, only?: Iterable<string>): Promise<Map<string, FaultKind>> {
  const wanted = only ? new Set([...only].map(moduleFile)) : undefined;
  const kinds = new Map<string, FaultKind>();
  for (const f of readdirSync(dir).filter((f) => isModuleFile(f) && !NOT_KINDS.has(f) && (!wanted || wanted.has(f))).sort()) {
    const kind = ((await import(join(dir, f))) as { default?: FaultKind }).default;
    if (!kind?.kind) continue;
    if (kind.kind !== moduleName(f)) throw new Error(`fault kind in ${join(dir, f)} is "${kind.kind}": a fault kind is named after its file`);
    kinds.set(kind.kind, kind);
  }
  return kinds;
}
