/**
 * The HTML shell every convoy page shares: a strict Content-Security-Policy (no network at
 * all: scripts and styles only inline, images only data:), uPlot and the pages' own CSS and
 * JS inlined, and the page's data as one JSON blob.
 */
import { esc, jsonForScript, scriptText, styleText } from './html.ts';
import { asset, uplotAssets } from './vendor.ts';

export const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

export interface PageInput {
  title: string;
  /** Links for the sticky table of contents: [href, label]. */
  nav?: [string, string][];
  body: string;
  /** Embedded as <script type="application/json" id="convoy-data">. */
  data: unknown;
  /** Browser scripts from harness/report/assets/, run after uPlot and charts.js. */
  scripts: string[];
}

/** assets/units.js (an ES module) as a classic script that defines window.ConvoyUnits. */
function unitsScript(): string {
  const src = asset('units.js');
  const names = [...src.matchAll(/^export function (\w+)/gm)].map((m) => m[1]);
  return `window.ConvoyUnits = (function () {\n${src.replace(/^export /gm, '')}\nreturn { ${names.join(', ')} };\n})();`;
}

export function page(input: PageInput): string {
  const uplot = uplotAssets();
  const nav = input.nav?.length ? `<nav class="toc">${input.nav.map(([href, label]) => `<a href="${esc(href)}">${esc(label)}</a>`).join('')}</nav>` : '';
  const scripts = [unitsScript(), ...['charts.js', ...input.scripts].map(asset)].map((s) => `<script>${scriptText(s)}</script>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="convoy (uPlot ${esc(uplot.version)})">
<title>${esc(input.title)}</title>
<style>${styleText(uplot.css)}</style>
<style>${styleText(asset('style.css'))}</style>
</head>
<body>
${nav}
<main>
${input.body}
</main>
<script type="application/json" id="convoy-data">${jsonForScript(input.data)}</script>
<script>${scriptText(uplot.js)}</script>
${scripts}
</body>
</html>
`;
}
