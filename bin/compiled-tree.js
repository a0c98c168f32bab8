// The compiled tree: harness/ and brokers/ as JavaScript, in the cache, so convoy's processes
// start without tsx. Under tsx every module is a round trip to its loader thread: a CLI start
// cost about 1 s of CPU, a worker 0.4 s. The tree is built with esbuild (as tsx itself does,
// file by file, no bundling: the folders that list their plugins stay folders) on first use
// after any change to the sources, and is keyed by their content, so it is never stale.
//
// Layout: <cache>/compiled/<hash>/ holds harness/ and brokers/ with every .ts file compiled to
// .js (relative imports rewritten to .js) and every other file linked to the original; every
// other top-level entry of the checkout (package.json, node_modules, workloads, ...) is linked,
// so paths taken from import.meta.url find what they find in the checkout. Code that lists or
// spawns modules asks harness/module-ext.ts which extension it is running with.
//
// CONVOY_COMPILED=0 turns it off (everything runs from the sources through tsx).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from './cache-dir.js';
import { pidAlive } from './pid-alive.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The folders compiled; everything else at the top is linked. */
const COMPILED = ['harness', 'brokers'];
/** Never part of the tree: tests (run from the sources) and installed packages. */
const SKIPPED = new Set(['test', 'node_modules']);
/** Bump when the layout or the rewriting below changes. */
const FORMAT = 1;

/** Every file under `dir`, except in SKIPPED folders. */
function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const isModule = (f) => f.endsWith('.ts') && !f.endsWith('.d.ts');

/**
 * What to link rather than compile: each folder with no module in it or below (linked whole,
 * so tools that build there, such as go for brokers/pubsub/pstest-server, see a real folder),
 * and each other file that is not a module.
 */
function links(files) {
  const withModules = new Set();
  for (const f of files.filter(isModule)) for (let d = dirname(f); d.startsWith(ROOT) && !withModules.has(d); d = dirname(d)) withModules.add(d);
  const out = new Set();
  for (const f of files) {
    if (isModule(f)) continue;
    let top = f;
    for (let d = dirname(f); !withModules.has(d) && d.startsWith(ROOT); d = dirname(d)) top = d;
    out.add(top);
  }
  return [...out];
}

/** `from "./x.ts"`, `import("./x.ts")`, `import "./x.ts"`: relative specifiers only. */
const RELATIVE_TS = /((?:\bfrom|\bimport)\s*\(?\s*["'])(\.{1,2}\/[^"'\n]*?)\.ts(["'])/g;

function build(files, sources, dir, esbuild) {
  const ts = files.filter(isModule);
  const result = esbuild.buildSync({
    entryPoints: ts,
    outdir: dir,
    outbase: ROOT,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  for (const out of result.outputFiles) {
    mkdirSync(dirname(out.path), { recursive: true });
    writeFileSync(out.path, out.text.replace(RELATIVE_TS, '$1$2.js$3'));
  }
  for (const f of links(files)) {
    const to = join(dir, relative(ROOT, f));
    mkdirSync(dirname(to), { recursive: true });
    symlinkSync(f, to);
  }
  for (const name of readdirSync(ROOT)) {
    if (COMPILED.includes(name) || name === '.git') continue;
    symlinkSync(join(ROOT, name), join(dir, name));
  }
  writeFileSync(join(dir, '.complete'), JSON.stringify({ root: ROOT, sources }));
}

/**
 * Removes trees unused for a day (each use touches its tree): a tree may serve a long suite
 * from another checkout, whose workers start from it hours after it was built. Also half-built
 * trees whose builder is gone.
 */
function prune(base, keep) {
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const n of readdirSync(base)) {
    const p = join(base, n);
    if (n.includes('.tmp-')) {
      if (!pidAlive(Number(n.split('.tmp-')[1]))) rmSync(p, { recursive: true, force: true });
    } else if (n !== keep && /^[0-9a-f]{40}$/.test(n) && statSync(p).mtimeMs < dayAgo) rmSync(p, { recursive: true, force: true });
  }
}

/**
 * The compiled tree's folder for the sources as they are now, built if need be; undefined when
 * it is turned off or cannot be built (then everything runs through tsx, as before).
 */
export async function compiledTree() {
  if (process.env.CONVOY_COMPILED === '0') return undefined;
  try {
    const files = COMPILED.flatMap((d) => walk(join(ROOT, d))).sort();
    const hash = createHash('sha1').update(`format ${FORMAT}\0${ROOT}\0`);
    for (const f of files) {
      hash.update(relative(ROOT, f) + '\0');
      if (f.endsWith('.ts')) hash.update(readFileSync(f)).update('\0');
    }
    const base = join(cacheDir(), 'compiled');
    const id = hash.digest('hex');
    // A process started by one that runs compiled (a test's CLI with a cache of its own) may
    // use that one's tree: the same sources give the same name.
    const handed = process.env.CONVOY_COMPILED_TREE && join(dirname(process.env.CONVOY_COMPILED_TREE), id);
    if (handed && existsSync(join(handed, '.complete'))) return handed;
    const dir = join(base, id);
    if (existsSync(join(dir, '.complete'))) {
      try {
        utimesSync(dir, new Date(), new Date()); // in use (prune)
      } catch {
        /* a cache we cannot write still serves */
      }
      return dir;
    }
    const esbuild = await import('esbuild');
    mkdirSync(base, { recursive: true });
    const tmp = join(base, `${id}.tmp-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    build(files, files.length, tmp, esbuild);
    try {
      renameSync(tmp, dir);
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another process built it meanwhile
    }
    prune(base, id);
    return existsSync(join(dir, '.complete')) ? dir : undefined;
  } catch (err) {
    process.stderr.write(`convoy: running from the sources through tsx (the compiled tree could not be built: ${err.message})\n`);
    return undefined;
  }
}
