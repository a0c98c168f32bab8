/**
 * The run report's sections register themselves (harness/report/sections/): one module each,
 * default-exporting its order, anchor and label. The page and its navigation come from that one
 * list, so a section that renders is linked, and one that renders nothing is in neither.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderReport } from '../../harness/report/render.ts';
import { reportSections } from '../../harness/report/sections/registry.ts';
import type { ReportResult } from '../../harness/report/view.ts';

const navOf = (page: string) => [...page.matchAll(/<a href="#([\w-]+)"/g)].map((m) => m[1]);
const sectionsOf = (page: string) => [...page.matchAll(/<section id="([\w-]+)"/g)].map((m) => m[1]);

test('every section that renders is in the navigation, in page order; one that renders nothing is in neither', async () => {
  const withCosts: ReportResult = {
    runId: 'x-20261205-101445-7bed',
    verdict: { status: 'pass' } as ReportResult['verdict'],
    workload: { finalState: { versioned: { costs: { consumers: 1, counts: { held: 3 }, peaks: {}, latency: {} } } } } as unknown as ReportResult['workload'],
  };
  const page = renderReport(withCosts);
  const nav = navOf(page);
  const anchors = (await reportSections()).flatMap((s) => (s.nav ? [s.nav.id] : []));
  // The strategy sections were once left out of the navigation written beside the body.
  assert.ok(nav.includes('strategies') && nav.includes('costs'), nav.join(', '));
  assert.deepEqual(nav, sectionsOf(page).filter((id) => anchors.includes(id!)));
  // No order service in this run: no section and no link.
  assert.ok(!nav.includes('gateway') && !sectionsOf(page).includes('gateway'));
});

test('a new module in the sections folder is a section, placed by its order; helpers of the folder are not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-sections-'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'b.ts'), `export default { order: 20, nav: { id: 'b', label: 'B' }, render: () => '<section id="b"></section>' };\n`);
  writeFileSync(join(dir, 'a.ts'), `export default { order: 30, render: () => '' };\n`);
  writeFileSync(join(dir, 'helper.ts'), `export const cells = 1;\n`);
  writeFileSync(join(dir, 'first.ts'), `export default { order: 10, nav: { id: 'first', label: 'First' }, render: () => 'x' };\n`);
  const sections = await reportSections(dir);
  assert.deepEqual(sections.map((s) => s.order), [10, 20, 30]);
  writeFileSync(join(dir, 'again.ts'), `export default { order: 40, nav: { id: 'b', label: 'B again' }, render: () => '' };\n`);
  await assert.rejects(reportSections(dir), /two report sections have the anchor #b/);
});
