/**
 * The per-run report in headless Chromium: it loads from file:// with no console errors and no
 * network request, its charts hold data, and the numbers it shows are the result's.
 */
// @needs chromium
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { writeReport } from '../../harness/report/render.ts';
import { formatDuration } from '../../harness/report/format.ts';
import { faultWindowsOf, type ReportResult } from '../../harness/report/view.ts';
import { launch, openFile, type OpenedPage } from './browser.ts';
import { exampleDir } from './fixture/variants.ts';

/** The run committed as the example (synthetic until a real run replaces it). */
const COMMITTED = new URL('../../examples/run/', import.meta.url).pathname;

/** "1.52 s" -> 1520000 µs, "344 µs" -> 344 */
function parseDuration(text: string): number {
  const m = /^([\d,.]+) (µs|ms|s)$/.exec(text.trim());
  assert.ok(m, `not a latency: "${text}"`);
  return Number(m[1].replace(/,/g, '')) * { 'µs': 1, ms: 1e3, s: 1e6 }[m[2] as 'µs' | 'ms' | 's'];
}

describe('report page', () => {
  let browser: Browser;
  let dir: string;
  let result: ReportResult;
  let opened: OpenedPage;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'convoy-report-'));
    cpSync(await exampleDir(), join(dir, 'run'), { recursive: true });
    rmSync(join(dir, 'run', 'report.html'), { force: true });
    result = JSON.parse(readFileSync(join(dir, 'run', 'result.json'), 'utf8')) as ReportResult;
    writeReport(join(dir, 'run'));
    browser = await launch();
    opened = await openFile(browser, join(dir, 'run', 'report.html'));
  });

  after(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('loads with no console errors and no network request', async () => {
    assert.deepEqual(opened.errors, []);
    assert.deepEqual(opened.requests, [opened.url], 'the only request is the file:// document itself');
    assert.equal(await opened.page.getAttribute('body', 'data-charts-error'), null);
    assert.equal(await opened.page.getAttribute('body', 'data-charts-ready'), 'true');
  });

  test('every chart is drawn and holds data', async () => {
    const charts = await opened.page.$$eval('[data-chart]', (els) =>
      els.map((e) => ({ chart: (e as HTMLElement).dataset.chart, ready: (e as HTMLElement).dataset.ready, series: Number((e as HTMLElement).dataset.series), points: Number((e as HTMLElement).dataset.points), canvases: e.querySelectorAll('canvas').length })),
    );
    const kinds = new Set(charts.map((c) => c.chart));
    for (const k of ['throughput', 'backlog', 'e2e-over-time', 'latency-curves', 'key-share', 'lane-traffic', 'key-order']) assert.ok(kinds.has(k), `chart ${k} present`);
    for (const c of charts) {
      assert.equal(c.ready, 'true', `${c.chart} drawn`);
      assert.ok(c.series > 0 && c.points > 0, `${c.chart} has data (${c.series} series, ${c.points} points)`);
      assert.equal(c.canvases, 1, `${c.chart} has its canvas`);
    }
    const tp = charts.find((c) => c.chart === 'throughput')!;
    assert.equal(tp.series, 3, 'sent, acked and processed');
    assert.equal(tp.points, result.timeline!.series!.sent.length * 3);
    const curves = charts.find((c) => c.chart === 'latency-curves')!;
    assert.equal(curves.series, 3, 'publish, publish delay and end-to-end');
  });

  test('faults are shaded and anomalies marked on the timeline', async () => {
    const el = opened.page.locator('#chart-throughput');
    assert.equal(await el.getAttribute('data-fault-windows'), String(faultWindowsOf(result).length));
    assert.ok(faultWindowsOf(result).length > 0);
    assert.equal(await el.getAttribute('data-anomaly-markers'), String(result.timeline!.anomalies!.length));
    assert.equal(await opened.page.locator('#fault-table tr.fault').count(), faultWindowsOf(result).length);
  });

  test('the stacked timeline charts line up: their plot areas start and end at the same x', async () => {
    const boxes = await opened.page.$$eval('#chart-throughput .u-over, #chart-backlog .u-over, #chart-e2e-over-time .u-over', (els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        return [Math.round(r.left), Math.round(r.width)];
      }),
    );
    assert.equal(boxes.length, 3);
    assert.deepEqual(boxes[1], boxes[0], 'backlog lines up with throughput');
    assert.deepEqual(boxes[2], boxes[0], 'end-to-end latency lines up with throughput');
  });

  test('the verdict and the expectation table show the result', async () => {
    const p = opened.page;
    assert.equal((await p.textContent('#verdict-badge'))!.trim(), result.verdict.status.toUpperCase());
    assert.equal((await p.textContent('#verdict-status'))!.trim(), result.verdict.status);
    assert.deepEqual(await p.$$eval('#verdict-reasons li', (els) => els.map((e) => e.textContent)), result.verdict.reasons);
    const rows = await p.$$eval('#expectation-table tbody tr', (els) =>
      els.map((e) => ({ cells: [...e.querySelectorAll('td')].map((td) => td.textContent!.trim()) })),
    );
    const exps = result.expectations!;
    assert.equal(rows.length, exps.length);
    exps.forEach((e, i) => {
      const [type, scope, expected, found, keys, held] = rows[i].cells;
      assert.equal(type, e.type);
      assert.equal(scope, e.window ? `${e.window.relation} ${e.window.fault}` : 'whole run');
      assert.equal(expected, e.expected);
      assert.equal(found, e.found === null ? '—' : String(e.found));
      assert.equal(keys, e.keys === null ? '—' : String(e.keys));
      assert.equal(held, e.held === true ? 'held' : e.held === false ? 'FAILED' : 'undecided');
    });
    assert.ok(exps.some((e) => e.window !== null), 'the fixture has window-scoped expectations');
    assert.ok(exps.some((e) => e.held === false), 'the fixture has a failed expectation');
    const anomalyCounts = await p.$$eval('#anomaly-table tbody tr', (els) => Object.fromEntries(els.map((e) => [(e as HTMLElement).dataset.type, e.querySelectorAll('td')[1].textContent])));
    for (const [t, a] of Object.entries(result.anomalies!)) assert.equal(anomalyCounts[t], String(a!.count), t);
  });

  test('latency figures are the result\'s p99s (and the rest)', async () => {
    const cells = await opened.page.$$eval('#latency-table td[data-stat]', (els) =>
      els.map((e) => ({ metric: (e as HTMLElement).dataset.metric!, stat: (e as HTMLElement).dataset.stat!, us: (e as HTMLElement).dataset.us, text: e.textContent! })),
    );
    const whole = result.latency!.whole!;
    for (const m of ['publish', 'publishDelay', 'endToEnd']) {
      const p99 = cells.find((c) => c.metric === m && c.stat === 'p99');
      assert.ok(p99, `${m} p99 shown`);
      assert.equal(Number(p99.us), whole[m].p99);
      assert.equal(p99.text, formatDuration(whole[m].p99));
      const shown = parseDuration(p99.text);
      assert.ok(Math.abs(shown - whole[m].p99) <= Math.max(1, whole[m].p99 * 0.005), `${m} p99 ${p99.text} vs ${whole[m].p99} µs`);
    }
    for (const c of cells) assert.equal(Number(c.us), (whole[c.metric] as unknown as Record<string, number>)[c.stat], `${c.metric} ${c.stat}`);
    const headline = await opened.page.textContent('[data-figure="endToEnd.p99"] .figure-value');
    assert.equal(headline, formatDuration(whole.endToEnd.p99));
  });

  test('the per-key plots show the worst keys with the checker\'s reorders, regressions, duplicates, gaps and overlaps', async () => {
    const anomalies = result.timeline!.anomalies!;
    const plots = await opened.page.$$eval('[data-chart="key-order"]', (els) => els.map((e) => ({ ...(e as HTMLElement).dataset })));
    const anomalousKeys = new Set(anomalies.filter((a) => a.key !== null).map((a) => a.key));
    assert.equal(plots.length, Math.min(5, anomalousKeys.size));
    for (const p of plots) {
      for (const type of ['reorder', 'regression', 'duplicate', 'gap', 'overlap']) {
        const expected = anomalies.filter((a) => a.key === p.key && a.type === type).length;
        const attr = `tag${type[0].toUpperCase()}${type.slice(1)}`;
        assert.equal(Number(p[attr] ?? 0), expected, `key ${p.key}: ${type}`);
      }
      assert.ok(Number(p.highlighted) > 0, `key ${p.key} has highlighted points`);
    }
  });

  test('secrets stay redacted', async () => {
    const html = readFileSync(join(dir, 'run', 'report.html'), 'utf8');
    assert.ok(!html.includes('hunter2'));
    assert.match((await opened.page.textContent('#scenario-json'))!, /"password": "\*\*\*"/);
  });

  test('the committed example (examples/run/) renders and loads cleanly too', async () => {
    const copy = join(dir, 'committed');
    cpSync(COMMITTED, copy, { recursive: true });
    rmSync(join(copy, 'report.html'), { force: true });
    const committed = JSON.parse(readFileSync(join(copy, 'result.json'), 'utf8')) as ReportResult;
    writeReport(copy);
    const o = await openFile(browser, join(copy, 'report.html'));
    try {
      assert.deepEqual(o.errors, []);
      assert.deepEqual(o.requests, [o.url]);
      assert.equal(await o.page.getAttribute('body', 'data-charts-ready'), 'true');
      const charts = await o.page.$$eval('[data-chart]', (els) => els.map((e) => ({ chart: (e as HTMLElement).dataset.chart, points: Number((e as HTMLElement).dataset.points) })));
      assert.ok(charts.length >= 6);
      for (const c of charts) assert.ok(c.points > 0, `${c.chart} has data`);
      assert.equal((await o.page.textContent('#verdict-status'))!.trim(), committed.verdict.status);
      assert.equal(await o.page.locator('#expectation-table tbody tr').count(), committed.expectations!.length);
      const p99 = await o.page.getAttribute('#latency-table td[data-metric="endToEnd"][data-stat="p99"]', 'data-us');
      assert.equal(Number(p99), committed.latency!.whole!.endToEnd.p99);
    } finally {
      await o.page.close();
    }
  });

  test('convoy report <run-dir> (re)renders the page; a folder without result.json is bad input', () => {
    const run = join(dir, 'cli-run');
    cpSync(join(dir, 'run'), run, { recursive: true });
    rmSync(join(run, 'report.html'), { force: true });
    const bin = new URL('../../bin/convoy.js', import.meta.url).pathname;
    const ok = spawnSync(process.execPath, [bin, 'report', run], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stdout.trim(), join(run, 'report.html'));
    assert.ok(existsSync(join(run, 'report.html')) && statSync(join(run, 'report.html')).size > 50_000);
    mkdirSync(join(dir, 'empty'), { recursive: true });
    const bad = spawnSync(process.execPath, [bin, 'report', join(dir, 'empty')], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /no result\.json/);
  });

  test('hostile text in the result stays text, and a broken run\'s sparse result still renders', async () => {
    const hostile: ReportResult = {
      runId: 'x-</script><script>window.__pwned=1</script>',
      verdict: { status: 'unknown', reasons: ['the broker <b>never</b> came up </script>'] },
      scenario: { name: 'hostile</script>', description: '<img src=x onerror="window.__pwned=2"></script><script>window.__pwned=3</script>', broker: { kind: 'kafka', url: 'amqp://user:hunter2@host/' } },
    };
    const file = join(dir, 'hostile.html');
    const { renderReport } = await import('../../harness/report/render.ts');
    writeFileSync(file, renderReport(hostile));
    const o = await openFile(browser, file);
    try {
      assert.deepEqual(o.errors, []);
      assert.deepEqual(o.requests, [o.url]);
      assert.equal(await o.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
      assert.equal((await o.page.textContent('#verdict-badge'))!.trim(), 'UNKNOWN');
      assert.equal((await o.page.textContent('#verdict-reasons li'))!, 'the broker <b>never</b> came up </script>');
      assert.match((await o.page.textContent('.description'))!, /onerror/);
      assert.ok(!readFileSync(file, 'utf8').includes('hunter2'));
    } finally {
      await o.page.close();
    }
  });
});
