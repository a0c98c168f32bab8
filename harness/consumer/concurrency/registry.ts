/**
 * Every concurrency mode: one file each in ./modes/, found when this module loads (the
 * scenario schema lists them). The default mode comes first, the others by name.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConcurrencyMode } from './contract.ts';
import { isModuleFile } from '../../module-ext.ts';

const DIR = fileURLToPath(new URL('./modes/', import.meta.url));

/** The modes in `dir` (tests pass a folder of their own). */
export async function loadConcurrencyModes(dir = DIR): Promise<ConcurrencyMode[]> {
  const modes: ConcurrencyMode[] = [];
  for (const f of readdirSync(dir).filter(isModuleFile).sort()) {
    const mod = (await import(join(dir, f))) as { default?: ConcurrencyMode };
    if (mod.default?.name) modes.push(mod.default);
  }
  return modes.sort((a, b) => Number(!!b.default) - Number(!!a.default) || a.name.localeCompare(b.name));
}

export const CONCURRENCY_MODES: readonly ConcurrencyMode[] = await loadConcurrencyModes();

/** The mode named `name`; the scenario schema has already refused any other name. */
export function concurrencyMode(name: string, modes: readonly ConcurrencyMode[] = CONCURRENCY_MODES): ConcurrencyMode {
  const mode = modes.find((m) => m.name === name);
  if (!mode) throw new Error(`no concurrency mode "${name}" (have ${modes.map((m) => m.name).join(', ')})`);
  return mode;
}

/** The `consumers.concurrency` section of the scenario schema, from the modes. */
export function concurrencySchema(modes: readonly ConcurrencyMode[] = CONCURRENCY_MODES): Record<string, unknown> {
  const byDefault = modes.find((m) => m.default) ?? modes[0]!;
  return {
    mode: {
      enum: modes.map((m) => m.name),
      default: byDefault.name,
      description: `${modes.map((m) => `${m.name}: ${m.description}`).join('; ')}. Default ${byDefault.name}.`,
    },
    ...Object.assign({}, ...modes.map((m) => m.schema ?? {})),
  };
}
