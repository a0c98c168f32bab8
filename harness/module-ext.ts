/**
 * Which extension convoy's own modules have in this process: '.ts' when it runs from the
 * sources through tsx, '.js' when it runs from the compiled tree (bin/compiled-tree.js). Code
 * that lists a plugin folder or starts one of its modules as a process asks here, so both
 * ways find the same files.
 */
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const MODULE_EXT: '.ts' | '.js' = import.meta.url.endsWith('.js') ? '.js' : '.ts';

/** The checkout's root, or the compiled tree's (the same layout). */
const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The checkout itself (the compiled tree links its package.json): where npm and git work. */
export const CHECKOUT = dirname(realpathSync(join(ROOT, 'package.json')));

/** A module of a plugin folder, as this process loads them (no tests, no declarations). */
export function isModuleFile(name: string): boolean {
  return name.endsWith(MODULE_EXT) && !name.endsWith('.d.ts') && !name.endsWith(`.test${MODULE_EXT}`);
}

/** `foo` for foo.ts or foo.js. */
export function moduleName(file: string): string {
  return basename(file, MODULE_EXT);
}

/** `name` with this process's module extension. */
export function moduleFile(name: string): string {
  return `${name}${MODULE_EXT}`;
}

/** tsx's ES-module loader, by absolute URL so a process can start in any working directory. */
const TSX_LOADER = import.meta.resolve('tsx/esm');

/**
 * The node arguments that run one of convoy's modules (`rel`: from the root, without its
 * extension) as a process: from the compiled tree when this process runs from it or was handed
 * one (CONVOY_COMPILED_TREE, set by bin/convoy.js and bin/run-tests.js), else the source file
 * through tsx's loader.
 */
export function moduleProcessArgs(rel: string): string[] {
  if (MODULE_EXT === '.js') return [join(ROOT, `${rel}.js`)];
  const tree = process.env.CONVOY_COMPILED_TREE;
  if (tree && existsSync(join(tree, `${rel}.js`))) return [join(tree, `${rel}.js`)];
  return ['--import', TSX_LOADER, join(ROOT, `${rel}.ts`)];
}

let tsLoader: Promise<void> | undefined;

/**
 * Imports a file outside convoy's tree (a strategy folder of the user's): a .ts file there
 * needs tsx even when convoy runs compiled, so its loader is registered on first need.
 */
export async function importOutside(file: string): Promise<unknown> {
  if (file.endsWith('.ts') && MODULE_EXT === '.js') {
    tsLoader ??= import('tsx/esm/api').then(({ register }) => void register());
    await tsLoader;
  }
  return import(pathToFileURL(file).href);
}
