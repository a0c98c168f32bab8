/**
 * Every consumer strategy: one file each in this folder, plus the folders named in
 * CONVOY_STRATEGY_DIRS (path-delimited; for a strategy kept outside the tree, such as a test's
 * fixture). A file counts when its default export is a ConsumerStrategy; its name must match
 * the file's. Worker processes inherit the variable and so find the same strategies.
 */
import { readdirSync, existsSync } from 'node:fs';
import { basename, delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../errors.ts';
import type { ConsumerStrategy, StrategyOptions } from './contract.ts';
import { importOutside, isModuleFile, moduleFile } from '../../module-ext.ts';

const BUILT_IN = fileURLToPath(new URL('./', import.meta.url));
/** The folder's own machinery (schema.ts imports this module: importing it back would deadlock). */
const NOT_STRATEGIES = new Set(['contract', 'registry', 'schema', 'open', 'rows', 'costs'].map(moduleFile));

/** Built-in strategies are modules of this tree (.ts, or .js when compiled); a folder of the user's holds .ts files. */
function strategyFiles(dir: string): string[] {
  if (dir === BUILT_IN) return readdirSync(dir).filter((n) => isModuleFile(n) && !NOT_STRATEGIES.has(n));
  return readdirSync(dir).filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts') && !n.endsWith('.d.ts'));
}

export function strategyDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const extra = (env.CONVOY_STRATEGY_DIRS ?? '').split(delimiter).filter(Boolean).map((d) => resolve(d));
  return [BUILT_IN, ...extra];
}

let cached: { key: string; strategies: Map<string, ConsumerStrategy> } | undefined;

/** The strategies, by name (built-in ones first, then each extra folder's, each sorted). */
export async function loadStrategies(): Promise<Map<string, ConsumerStrategy>> {
  const dirs = strategyDirs();
  const key = dirs.join(delimiter);
  if (cached?.key === key) return cached.strategies;
  const out = new Map<string, ConsumerStrategy>();
  for (const dir of dirs) {
    if (!existsSync(dir)) throw new InputError(`CONVOY_STRATEGY_DIRS: no such folder ${dir}`);
    for (const f of strategyFiles(dir).sort()) {
      const mod = (await importOutside(join(dir, f))) as { default?: Partial<ConsumerStrategy> };
      const s = mod.default;
      if (!s || typeof s.name !== 'string' || typeof s.open !== 'function') continue;
      if (s.name !== basename(f).replace(/\.[jt]s$/, '')) throw new Error(`strategy in ${join(dir, f)} is named "${s.name}": a strategy is named after its file`);
      out.set(s.name, s as ConsumerStrategy);
    }
  }
  cached = { key, strategies: out };
  return out;
}

/** `consumers.strategy` (a name, or { kind, ...options }) as an object. */
export function strategyOptions(spec: string | StrategyOptions): StrategyOptions {
  return typeof spec === 'string' ? { kind: spec } : spec;
}

/** The strategy a scenario's consumers run, with its options. */
export async function chosenStrategy(spec: string | StrategyOptions): Promise<{ strategy: ConsumerStrategy; options: StrategyOptions }> {
  const options = strategyOptions(spec);
  const named = await strategyFile(options.kind);
  if (named) return { strategy: named, options };
  const all = await loadStrategies();
  const strategy = all.get(options.kind);
  if (!strategy) throw new InputError(`consumers.strategy: expected one of ${[...all.keys()].join(', ')}; got ${JSON.stringify(options.kind)}`);
  return { strategy, options };
}

/**
 * The strategy `name` from its own file (a strategy is named after its file), without loading
 * the others: a consumer process needs only its own. The folder listed last wins, as in
 * loadStrategies; undefined when no folder has it (loadStrategies then says what there is).
 */
async function strategyFile(name: string): Promise<ConsumerStrategy | undefined> {
  if (cached?.key === strategyDirs().join(delimiter)) return cached.strategies.get(name);
  const dirs = strategyDirs();
  if (dirs.some((d) => !existsSync(d))) return undefined;
  for (const dir of dirs.reverse()) {
    const file = strategyFiles(dir).map((f) => join(dir, f)).find((f) => basename(f).replace(/\.[jt]s$/, '') === name);
    if (!file) continue;
    const s = ((await importOutside(file)) as { default?: Partial<ConsumerStrategy> }).default;
    if (s && s.name === name && typeof s.open === 'function') return s as ConsumerStrategy;
  }
  return undefined;
}
