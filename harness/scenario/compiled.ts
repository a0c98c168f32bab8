/**
 * ajv validators compiled once per machine, not once per process. Compiling the scenario schema
 * costs about 0.4 s of CPU in every process that loads a scenario (every CLI command, every test
 * process that runs one); its standalone code (ajv's own code generation), cached under
 * CONVOY_CACHE/ajv by the hash of ajv's version, its options and the schema, loads in about
 * 20 ms. A cache file that cannot be read or run is compiled and written again.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { cacheDir } from '../runtime/cache.ts';

const require = createRequire(import.meta.url);
const AJV_VERSION = (require('ajv/package.json') as { version: string }).version;
/** Cached validators kept; the oldest go first (each schema change makes a new one). */
const KEEP = 64;

/**
 * The validator for `schema`, from the cache or compiled by an ajv made with `options` (they
 * are part of the key; with `code.source`, so that its code can be written out) and cached.
 */
export function compileCached(compiler: () => Ajv2020, options: object, schema: object): ValidateFunction {
  const key = `${createHash('sha256').update(JSON.stringify([AJV_VERSION, options, schema])).digest('hex').slice(0, 32)}.cjs`;
  let dir: string | undefined;
  try {
    dir = cacheDir('ajv');
  } catch {
    dir = undefined; // no usable cache (read-only home, say): compile every time
  }
  const file = dir ? join(dir, key) : undefined;
  const cached = file && existsSync(file) ? load(file, schema) : undefined;
  if (cached) return cached;
  const ajv = compiler();
  const validate = ajv.compile(schema);
  if (!dir || !file) return validate;
  const standalone = (require('ajv/dist/standalone/index.js') as { default: (ajv: Ajv2020, v: ValidateFunction) => string }).default;
  // Written aside and renamed: processes compiling the same schema at once never read half a file.
  // The cache only saves time: a failure to write it costs nothing else.
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, standalone(ajv, validate));
    renameSync(tmp, file);
    prune(dir);
  } catch {
    rmSync(tmp, { force: true });
  }
  return validate;
}

function load(file: string, schema: object): ValidateFunction | undefined {
  try {
    const module = { exports: {} as { default?: ValidateFunction } };
    // The generated code requires ajv's runtime helpers: resolved from here, wherever the cache is.
    new Function('require', 'module', 'exports', readFileSync(file, 'utf8'))(require, module, module.exports);
    const validate = module.exports.default;
    if (typeof validate !== 'function') return undefined;
    return Object.assign(validate, { schema }) as ValidateFunction;
  } catch {
    return undefined;
  }
}

function prune(dir: string): void {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cjs'));
  if (files.length <= KEEP) return;
  const byAge = files.map((f) => ({ f, at: statSync(join(dir, f)).mtimeMs })).sort((a, b) => a.at - b.at);
  for (const { f } of byAge.slice(0, files.length - KEEP)) rmSync(join(dir, f), { force: true });
}
