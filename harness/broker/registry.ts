import { readdirSync, existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { BrokerDefinition, BrokerModule, BrokerSettings } from './contract.ts';
import { durationsInMs } from '../duration.ts';
import { InputError } from '../errors.ts';
import { moduleFile } from '../module-ext.ts';

/** brokers/ at the repository root: each folder with an index module is a broker. */
export const BROKERS_DIR = fileURLToPath(new URL('../../brokers/', import.meta.url));

export function brokerNames(): string[] {
  return readdirSync(BROKERS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(BROKERS_DIR, d.name, moduleFile('index'))))
    .map((d) => d.name)
    .sort();
}

/**
 * A broker's npm packages, from its own package.json (an npm workspace of the root): its
 * dependencies and optional dependencies. A broker with no package.json (the memory broker)
 * has none. The root package.json names no broker's packages.
 */
export function brokerPackages(kind: string): string[] {
  const file = join(BROKERS_DIR, kind, 'package.json');
  if (!existsSync(file)) return [];
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
  return [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})].sort();
}

/**
 * A broker's settingsSchema without loading its module and clients (about 1.5 s for all of
 * them): every broker folder keeps it in settings.ts, the module hands on that same object
 * (test/scenario/complete-schema.test.ts checks). For the published scenario schema.
 */
export async function brokerSettingsSchema(kind: string): Promise<Record<string, unknown>> {
  if (!brokerNames().includes(kind)) throw new InputError(`unknown broker "${kind}": expected one of ${brokerNames().join(', ')}`);
  return ((await import(join(BROKERS_DIR, kind, moduleFile('settings')))) as { settingsSchema: Record<string, unknown> }).settingsSchema;
}

export async function loadBroker(kind: string): Promise<BrokerModule> {
  const names = brokerNames();
  if (!names.includes(kind)) {
    throw new InputError(`unknown broker "${kind}": expected one of ${names.join(', ')}`);
  }
  const mod = (await import(join(BROKERS_DIR, kind, moduleFile('index')))) as { default: BrokerDefinition };
  const broker = mod.default;
  return { ...broker, clients: brokerPackages(kind), resolveSettings: (settings) => broker.resolveSettings(durationsInMs(settings) as BrokerSettings), deploy: async (ctx, settings) => {
    // The test runner's first phase runs the files that said they need nothing (bin/test-plan.js):
    // one whose run starts a real broker after all is named, not left to slow the phase down.
    if (process.env.CONVOY_NO_BROKERS && !broker.testDouble && ctx.runtime === 'local') {
      throw new Error(`a test file with no "// @needs" line started a ${broker.name} broker: give it one (bin/test-plan.js)`);
    }
    return broker.deploy(ctx, settings);
  } };
}

