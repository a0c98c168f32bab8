/**
 * The charts' tick labels as a person reads them: in headless Chromium, every string uPlot
 * draws on each chart's canvas of a report and of the dashboard (recorded at fillText, with
 * what lands inside the canvas) is parsed back to a number and checked: it carries a unit,
 * the labels increase along the axis, each stands for the value at its position, rate and
 * count axes start at 0, log axes span whole decades.
 */
// @needs chromium
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { writeReport } from '../../harness/report/render.ts';
import { spawnSync } from 'node:child_process';
import type { ReportResult } from '../../harness/report/view.ts';
import { launch, openFile } from './browser.ts';
import { READ_DRAWN_CHARTS, RECORD_DRAWN_TEXT, type DrawnChart } from './drawn-text.ts';
import { checkAxis, type AxisSpec } from './read-labels.ts';
import { exampleDir, writeResultsFolder } from './fixture/variants.ts';

const COMMITTED = new URL('../../examples/run/', import.meta.url).pathname;

const SECONDS: AxisSpec = { side: 'bottom', label: { kind: 'duration', scaleUs: 1e6 } };
/** Latency axes: the scale is in ms, log. */
const LATENCY: AxisSpec = { side: 'left', label: { kind: 'duration', scaleUs: 1e3 }, decades: true };

function reportSpecs(r: ReportResult): Record<string, AxisSpec[]> {
  return {
    throughput: [SECONDS, { side: 'left', label: { kind: 'count' }, title: 'msg/s', fromZero: true }],
    backlog: [SECONDS, { side: 'left', label: { kind: 'count' }, title: 'messages', fromZero: true }],
    'e2e-over-time': [SECONDS, LATENCY],
    'latency-curves': [{ side: 'bottom', label: { kind: 'percentile' } }, LATENCY],
    'key-share': [
      { side: 'bottom', label: { kind: 'count' }, title: 'key rank', decades: true, minLabels: 1 },
      { side: 'left', label: { kind: 'percent' }, decades: true },
      { side: 'right', label: { kind: 'percent' }, fromZero: true },
    ],
    'lane-traffic': [
      { side: 'bottom', label: { kind: 'names', names: (r.workload?.skew?.lanes ?? []).map((l) => l.lane) }, minLabels: 1 },
      { side: 'left', label: { kind: 'count' }, title: 'messages', fromZero: true },
    ],
    'key-order': [SECONDS, { side: 'left', label: { kind: 'count' }, title: 'seq' }],
  };
}

const DASHBOARD_SPECS: Record<string, AxisSpec[]> = {
  trend: [{ side: 'bottom', label: { kind: 'utc' } }, LATENCY, { side: 'right', label: { kind: 'count' }, title: 'msg/s', fromZero: true }],
  'compare-curves': [{ side: 'bottom', label: { kind: 'percentile' } }, LATENCY],
};

/** Checks every axis of every chart; returns every failure (not just the first), one per line. */
function checkCharts(charts: DrawnChart[], specs: Record<string, AxisSpec[]>): string[] {
  const problems: string[] = [];
  for (const c of charts) {
    const list = specs[c.chart];
    if (!list) {
      problems.push(`chart ${c.chart}: no expectation for its axes`);
      continue;
    }
    for (const s of list) {
      try {
        checkAxis(c, s);
      } catch (e) {
        problems.push((e as Error).message.split('\n')[0]);
      }
    }
  }
  return problems;
}

async function drawnCharts(browser: Browser, file: string): Promise<DrawnChart[]> {
  const o = await openFile(browser, file, undefined, RECORD_DRAWN_TEXT);
  try {
    assert.deepEqual(o.errors, []);
    assert.equal(await o.page.getAttribute('body', 'data-charts-ready'), 'true');
    return (await o.page.evaluate(READ_DRAWN_CHARTS)) as DrawnChart[];
  } finally {
    await o.page.close();
  }
}

describe('tick labels, as drawn', () => {
  let browser: Browser;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'convoy-ticks-'));
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [name, source] of [['the synthetic example', null], ['the committed example (examples/run/)', COMMITTED]] as const) {
    test(`every chart of the report of ${name} reads right`, async () => {
      const run = join(dir, name.replace(/\W+/g, '-'));
      cpSync(source ?? (await exampleDir()), run, { recursive: true });
      rmSync(join(run, 'report.html'), { force: true });
      const result = JSON.parse(readFileSync(join(run, 'result.json'), 'utf8')) as ReportResult;
      writeReport(run);
      const charts = await drawnCharts(browser, join(run, 'report.html'));
      const kinds = new Set(charts.map((c) => c.chart));
      for (const k of ['throughput', 'backlog', 'e2e-over-time', 'latency-curves', 'key-share', 'lane-traffic', 'key-order']) assert.ok(kinds.has(k), `chart ${k} read`);
      assert.deepEqual(checkCharts(charts, reportSpecs(result)), []);
    });
  }

  test('every chart of the dashboard (index and compare) reads right', async () => {
    await writeResultsFolder(join(dir, 'results'));
    const site = join(dir, 'site');
    const bin = new URL('../../bin/convoy.js', import.meta.url).pathname;
    const built = spawnSync(process.execPath, [bin, 'dashboard', join(dir, 'results'), '--out', site], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(built.status, 0, built.stderr);
    const index = await drawnCharts(browser, join(site, 'index.html'));
    assert.ok(index.length >= 3 && index.every((c) => c.chart === 'trend'), 'one trend chart per scenario');
    const compare = await drawnCharts(browser, join(site, 'compare.html'));
    assert.equal(compare.length, 1);
    assert.deepEqual(checkCharts([...index, ...compare], DASHBOARD_SPECS), []);
  });
});
