/**
 * The scenario files of a suite folder: the files listed in its `suite.txt` (one path per
 * line, relative to the folder, `#` comments), or else every *.yaml / *.yml directly in it,
 * by name. A list lets a short suite (the demo) reuse the nightly suite's files.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../errors.ts';
import { resolveExtends } from '../scenario/extends.ts';

export function scenarioFiles(folder: string): string[] {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new InputError(`${folder}: not a folder`);
  const list = join(folder, 'suite.txt');
  if (existsSync(list)) {
    const files = readFileSync(list, 'utf8')
      .split('\n')
      .map((l) => l.replace(/#.*/, '').trim())
      .filter(Boolean)
      .map((f) => join(folder, f));
    const missing = files.filter((f) => !existsSync(f));
    if (missing.length) throw new InputError(`${list}: no such scenario file: ${missing.join(', ')}`);
    if (files.length === 0) throw new InputError(`${list}: lists no scenario`);
    return files;
  }
  const files = readdirSync(folder)
    .filter((f) => /\.ya?ml$/i.test(f))
    .sort()
    .map((f) => join(folder, f))
    .filter((f) => statSync(f).isFile());
  if (files.length === 0) throw new InputError(`${folder}: no scenario files (*.yaml, *.yml)`);
  return files;
}

/** The broker kinds a suite's scenarios name (files that do not parse are left to the suite to report). */
export async function scenarioBrokers(folder: string): Promise<string[]> {
  const kinds = new Set<string>();
  for (const f of scenarioFiles(folder)) {
    try {
      // Through `extends:`: a twin names its broker in its parent.
      const kind = ((await resolveExtends(readFileSync(f, 'utf8'), f)).data.broker as { kind?: unknown } | undefined)?.kind;
      if (typeof kind === 'string') kinds.add(kind);
    } catch {
      /* reported when the suite loads it */
    }
  }
  return [...kinds].sort();
}
