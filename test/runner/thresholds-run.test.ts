import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runHere } from '../../brokers/memory/test/run-here.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { loadScenarioFile } from '../../harness/scenario/load.ts';
import { readRunRecord } from '../../harness/runner/record-file.ts';
import { analyzeRun } from '../../harness/runner/analyze.ts';
import { renderReport } from '../../harness/report/render.ts';
import { junitXml } from '../../harness/report/dashboard/junit.ts';
import type { ReportResult } from '../../harness/report/view.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

// One memory run with a consumer frozen for 1.5 s, judged twice: by its own thresholds
// (outside the fault's window: pass) and by its twin's (the whole run: fail on latency alone).
test('a threshold pair: outside the fault window it holds, over the whole run it fails on latency alone', async () => {
  const { result, runDir } = await runHere(fixture('threshold-held.yaml'));
  const row = (r: typeof result, type: string) => r.expectations.find((e) => e.type === type && (e as { scope?: string }).scope !== 'during stall')!;
  assert.equal(result.verdict.status, 'pass', result.verdict.reasons.join('; '));
  const p99 = row(result, 'latency.e2e.p99') as { found: number; held: boolean; scope: string; unit: string };
  assert.deepEqual([p99.held, p99.scope, p99.unit], [true, 'outside faults', 'ms']);
  const during = result.expectations.find((e) => e.type === 'latency.e2e.max')!;
  assert.equal(during.held, true, `the frozen lane waited: ${during.found} ms during the stall`);
  assert.equal(row(result, 'throughput').held, true);

  const twin = await loadScenarioFile(fixture('threshold-breached.yaml'), { catalogue: await scenarioCatalogue(), target: { runtime: 'local', allowDestructive: false } });
  const record = readRunRecord(runDir)!;
  const breached = await analyzeRun({ ...record, scenario: { ...record.scenario, expect: twin.expect } }, { write: false });
  assert.equal(breached.verdict.status, 'fail');
  // Latency alone: every anomaly expectation held; only the whole-run p99 did not.
  assert.deepEqual(breached.expectations.filter((e) => e.held === false).map((e) => e.type), ['latency.e2e.p99']);
  assert.match(breached.verdict.reasons[0], /^latency\.e2e\.p99 \(whole run\): expected <1s, found \d+(\.\d+)? ms$/);

  const html = renderReport(breached as unknown as ReportResult);
  assert.match(html, /<tr class="expectation failed"[^>]*data-type="latency.e2e.p99"[^>]*>\s*<td>latency.e2e.p99<\/td><td>whole run<\/td><td class="num">&lt;1s<\/td>/);
  const junit = junitXml([{ scenario: 'memory-threshold-breached', result: breached as unknown as ReportResult }, { scenario: 'memory-threshold-held', result: result as unknown as ReportResult }]);
  assert.match(junit, /<testcase [^>]*name="latency.e2e.p99 whole run &lt;1s"[^>]*>\s*<failure [^>]*type="threshold"/);
  assert.match(junit, /<testcase [^>]*name="latency.e2e.p99 outside faults &lt;1s"[^>]*\/>/);
});
