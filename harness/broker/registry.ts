import { readdirSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { BrokerModule } from './contract.ts';
import { InputError } from '../errors.ts';

/** brokers/ at the repository root: each folder with an index.ts is a broker. */
export const BROKERS_DIR = fileURLToPath(new URL('../../brokers/', import.meta.url));

export function brokerNames(): string[] {
  return readdirSync(BROKERS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(BROKERS_DIR, d.name, 'index.ts')))
    .map((d) => d.name)
    .sort();
}

export async function loadBroker(kind: string): Promise<BrokerModule> {
  const names = brokerNames();
  if (!names.includes(kind)) {
    throw new InputError(`unknown broker "${kind}": expected one of ${names.join(', ')}`);
  }
  const mod = (await import(join(BROKERS_DIR, kind, 'index.ts'))) as { default: BrokerModule };
  return mod.default;
}
