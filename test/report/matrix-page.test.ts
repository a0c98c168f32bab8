/**
 * matrix.html in a real browser: opens from file:// with no network, draws each cell's merged
 * latency curve, and shows an interval bar per cell for each anomaly type that appeared.
 */
// @needs chromium
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeComparison } from '../../harness/matrix/output.ts';
import { writeFileSync } from 'node:fs';
import { plan, write } from '../matrix/fixture.ts';
import { launch, openFile } from './browser.ts';

test('matrix.html: self-contained, one curve per cell with latency, a bar with its interval per cell', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-matrix-page-'));
  const done = write(dir, [
    { cell: 'partition', verdict: 'pass', reorders: 0, sent: 1000, e2e: [1_000, 2_000, 3_000] },
    { cell: 'unordered', verdict: 'pass', reorders: 7, sent: 1000, e2e: [5_000, 9_000, 40_000] },
    { cell: 'unordered', verdict: 'unknown', reorders: 1, sent: 1000, e2e: [1] },
  ]);
  const p = plan(['partition', 'unordered'], 2);
  p.runs = done.map((d) => ({ slot: d.slot, cell: d.cell, repeat: d.repeat, seed: 1 }));
  writeFileSync(join(dir, 'runs.jsonl'), done.map((d) => JSON.stringify(d)).join('\n') + '\n');
  const { files } = writeComparison(p, dir);
  const browser = await launch();
  try {
    const { page, errors, requests } = await openFile(browser, files[1]);
    assert.deepEqual(errors, []);
    assert.deepEqual(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:')), []);
    const curves = await page.$$eval('[data-chart="matrix-curves"]', (els) => els.map((e) => (e as HTMLElement).dataset.series));
    assert.deepEqual(curves, ['2', '2']);
    const bars = await page.$$eval('.share-track[data-type="reorder"]', (els) => els.map((e) => [(e as HTMLElement).dataset.cell, (e as HTMLElement).dataset.share]));
    assert.deepEqual(bars, [['partition', '0'], ['unordered', '1']]);
    const rows = await page.$$eval('#matrix-table tbody tr', (els) => els.map((e) => e.textContent ?? ''));
    assert.match(rows[1], /1 \+ 1 unknown/);
  } finally {
    await browser.close();
  }
});
