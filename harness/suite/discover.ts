/** The scenario files of a suite folder: every *.yaml / *.yml directly in it, by name. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../errors.ts';

export function scenarioFiles(folder: string): string[] {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new InputError(`${folder}: not a folder`);
  const files = readdirSync(folder)
    .filter((f) => /\.ya?ml$/i.test(f))
    .sort()
    .map((f) => join(folder, f))
    .filter((f) => statSync(f).isFile());
  if (files.length === 0) throw new InputError(`${folder}: no scenario files (*.yaml, *.yml)`);
  return files;
}
