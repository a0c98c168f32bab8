/**
 * The dashboard built by `convoy dashboard` from a folder of runs: the index lists every run,
 * the pages load in Chromium with no error and no request, the comparison shows the chosen
 * runs' figures, JUnit XML parses with the right failure and error counts, and the benchmark
 * files have github-action-benchmark's shape.
 */
// @needs chromium
import { seriesName } from '../../harness/report/dashboard/benchmark.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { junitXml } from '../../harness/report/dashboard/junit.ts';
import { launch, openFile } from './browser.ts';
import { writeResultsFolder } from './fixture/variants.ts';
import type { ReportResult } from '../../harness/report/view.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Counts in a JUnit document, parsed by the browser's XML parser. */
async function parseJunit(browser: Browser, text: string) {
  const page = await browser.newPage();
  try {
    return await page.evaluate((xml) => {
      const doc = new DOMParser().parseFromString(xml, 'application/xml');
      const root = doc.documentElement;
      return {
        parseError: doc.getElementsByTagName('parsererror').length > 0,
        root: root.nodeName,
        attrs: { tests: root.getAttribute('tests'), failures: root.getAttribute('failures'), errors: root.getAttribute('errors') },
        suites: [...doc.getElementsByTagName('testsuite')].map((s) => ({
          name: s.getAttribute('name'),
          tests: Number(s.getAttribute('tests')),
          cases: s.getElementsByTagName('testcase').length,
          failures: s.getElementsByTagName('failure').length,
          errors: s.getElementsByTagName('error').length,
          errorCases: [...s.getElementsByTagName('testcase')].filter((c) => c.getElementsByTagName('error').length).map((c) => c.getAttribute('name')),
        })),
        cases: doc.getElementsByTagName('testcase').length,
        failures: doc.getElementsByTagName('failure').length,
        errors: doc.getElementsByTagName('error').length,
      };
    }, text);
  } finally {
    await page.close();
  }
}

describe('dashboard', () => {
  let dir: string;
  let site: string;
  let runs: ReportResult[];
  let browser: Browser;
  let cli: ReturnType<typeof spawnSync>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'convoy-dashboard-'));
    runs = await writeResultsFolder(join(dir, 'results'));
    site = join(dir, 'site');
    cli = spawnSync(process.execPath, [join(ROOT, 'bin/convoy.js'), 'dashboard', join(dir, 'results'), '--out', site], { encoding: 'utf8', timeout: 30_000 });
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('convoy dashboard writes the site and the CI files', () => {
    assert.equal(cli.status, 0, String(cli.stderr));
    for (const f of ['index.html', 'compare.html', 'junit.xml', 'benchmark-latency.json', 'benchmark-throughput.json']) assert.ok(existsSync(join(site, f)), f);
    for (const r of runs) assert.ok(existsSync(join(site, 'runs', r.runId, 'report.html')), `report of ${r.runId}`);
  });

  test('the index lists every run with its verdict, and loads cleanly', async () => {
    const o = await openFile(browser, join(site, 'index.html'));
    try {
      assert.deepEqual(o.errors, []);
      assert.deepEqual(o.requests, [o.url]);
      const rows = await o.page.$$eval('#runs-table tbody tr', (els) => els.map((e) => ({ ...(e as HTMLElement).dataset })));
      assert.deepEqual(rows.map((r) => r.run).sort(), runs.map((r) => r.runId).sort());
      for (const r of runs) assert.equal(rows.find((x) => x.run === r.runId)!.verdict, r.verdict.status);
      assert.equal(await o.page.textContent('#count-pass'), String(runs.filter((r) => r.verdict.status === 'pass').length));
      assert.equal(await o.page.textContent('#count-unknown'), '1');
      const trends = await o.page.$$eval('[data-chart="trend"]', (els) => els.map((e) => ({ ...(e as HTMLElement).dataset })));
      assert.equal(trends.length, new Set(runs.map((r) => r.scenario!.name)).size);
      for (const t of trends) assert.ok(Number(t.series) > 0 && Number(t.points) > 0, `trend ${t.scenario} has data`);
      const links = await o.page.$$eval('#runs-table a[href^="runs/"]', (els) => els.map((e) => e.getAttribute('href')));
      assert.equal(links.length, runs.length, 'every run links its report');
    } finally {
      await o.page.close();
    }
  });

  test('compare.html?a=&b= shows the two chosen runs side by side', async () => {
    const [a, b] = [runs[1], runs[0]]; // the older passing run and the failing one, same scenario
    const o = await openFile(browser, join(site, 'compare.html'));
    await o.page.goto(`${o.url}?a=${encodeURIComponent(a.runId)}&b=${encodeURIComponent(b.runId)}`);
    await o.page.waitForSelector('body[data-charts-ready], body[data-charts-error]', { state: 'attached' });
    try {
      assert.deepEqual(o.errors, []);
      assert.ok(o.requests.every((u) => u.startsWith(o.url)), `only the page itself: ${o.requests.join(', ')}`);
      assert.equal(await o.page.textContent('#head-a'), a.runId);
      assert.equal(await o.page.textContent('#head-b'), b.runId);
      const cell = async (row: string, i: number) => o.page.getAttribute(`#compare-table tr[data-row="${row}"] td:nth-child(${i})`, 'data-value');
      assert.equal(Number(await cell('endToEnd p99', 2)), a.latency!.whole!.endToEnd.p99);
      assert.equal(Number(await cell('endToEnd p99', 3)), b.latency!.whole!.endToEnd.p99);
      assert.equal(Number(await cell('anomaly: regression', 3)), b.anomalies!.regression!.count);
      assert.equal(await o.page.getAttribute('[data-chart="compare-curves"]', 'data-series'), '4');
    } finally {
      await o.page.close();
    }
  });

  test('JUnit XML parses: one suite per scenario (its newest run), failures and errors counted', async () => {
    const j = await parseJunit(browser, readFileSync(join(site, 'junit.xml'), 'utf8'));
    assert.equal(j.parseError, false);
    assert.equal(j.root, 'testsuites');
    assert.deepEqual(j.suites.map((s) => s.name).sort(), ['kill-broker-kafka', 'rabbit-failover', 'stall-consumer-kafka']);
    // The newest stall-consumer-kafka run failed its regression expectation; rabbit-failover is broken.
    assert.equal(j.failures, 1);
    assert.equal(j.errors, 1);
    assert.deepEqual(j.attrs, { tests: String(j.cases), failures: '1', errors: '1' });
    assert.deepEqual(j.suites.find((s) => s.name === 'rabbit-failover')!.errorCases, ['run']);
    for (const s of j.suites) assert.equal(s.tests, s.cases);
  });

  test('JUnit: a scenario that did not load is an error, and hostile names stay well-formed', async () => {
    const bad = junitXml([
      { scenario: 'broken.yaml', file: '/x/broken.yaml', stage: 'load', error: 'workload.rate: required <field> & "more"' },
      { scenario: 'no-broker', stage: 'run', error: 'rabbitmq would not start' },
      { scenario: 'x', result: { ...runs[0], scenario: { ...runs[0].scenario, name: 'a<b>&"c\u0001' } } },
    ]);
    const j = await parseJunit(browser, bad);
    assert.equal(j.parseError, false);
    assert.equal(j.errors, 2);
    assert.equal(j.failures, 1);
    assert.deepEqual(j.suites[0].errorCases, ['load']);
    assert.deepEqual(j.suites[1].errorCases, ['run']);
    assert.equal(j.suites[2].name, 'a<b>&"c');
  });

  test('benchmark files are github-action-benchmark custom arrays, broken runs left out', () => {
    const latency = JSON.parse(readFileSync(join(site, 'benchmark-latency.json'), 'utf8')) as { name: string; unit: string; value: number }[];
    const throughput = JSON.parse(readFileSync(join(site, 'benchmark-throughput.json'), 'utf8')) as { name: string; unit: string; value: number }[];
    for (const [list, unit] of [[latency, 'ms'], [throughput, 'msg/s']] as const) {
      assert.ok(Array.isArray(list) && list.length > 0);
      for (const p of list) {
        assert.equal(typeof p.name, 'string');
        assert.equal(p.unit, unit);
        assert.ok(typeof p.value === 'number' && Number.isFinite(p.value));
      }
      assert.equal(new Set(list.map((p) => p.name)).size, list.length, 'names are unique');
      assert.ok(!list.some((p) => p.name.startsWith('rabbit-failover')), 'the broken run is left out');
    }
    const newest = runs[0];
    // Named with the client and broker versions; latency outside fault windows, not the whole run's.
    // The result names the client its settings chose (here librdkafka's), not just every package.
    assert.deepEqual(newest.versions?.client?.name, '@confluentinc/kafka-javascript');
    const series = seriesName(newest);
    assert.match(series, /^stall-consumer-kafka \[\S+ \d[\w.-]*, kafka \d[\w.-]*\]$/);
    const quiet = newest.latency!.outsideFaults!.endToEnd;
    assert.notEqual(quiet.p99, newest.latency!.whole!.endToEnd.p99, 'the example has a fault in its p99');
    assert.equal(latency.find((p) => p.name === `${series} e2e p99 outside faults`)!.value, quiet.p99 / 1000);
    assert.equal(throughput.find((p) => p.name === `${series} throughput (sent)`)!.value, newest.workload!.achievedRate);
  });

  test('convoy dashboard on a folder without results is bad input (exit 2)', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/convoy.js'), 'dashboard', join(dir, 'site', 'runs')], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /no <run>\/result\.json/);
  });
});
