/** The chart library, inlined from node_modules so a page needs no network (no CDN). */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface VendoredAssets {
  js: string;
  css: string;
  version: string;
}

let cached: VendoredAssets | undefined;

/** uPlot's minified IIFE build (global `uPlot`) and its stylesheet. */
export function uplotAssets(): VendoredAssets {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const dist = dirname(require.resolve('uplot'));
  const pkg = JSON.parse(readFileSync(join(dist, '..', 'package.json'), 'utf8')) as { version: string };
  cached = {
    js: readFileSync(join(dist, 'uPlot.iife.min.js'), 'utf8'),
    css: readFileSync(join(dist, 'uPlot.min.css'), 'utf8'),
    version: pkg.version,
  };
  return cached;
}

/** The report's own browser-side files (harness/report/assets/). */
export function asset(name: string): string {
  return readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');
}
