import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareMatrix, matrixExitCode } from '../../harness/matrix/compare.ts';
import { judgeExpectations } from '../../harness/matrix/expect.ts';
import { matrixPage } from '../../harness/matrix/page.ts';
import { comparisonMarkdown } from '../../harness/matrix/table.ts';
import { plan, write } from './fixture.ts';

test('comparison: shares with Wilson intervals, per-1000 rates, merged (not averaged) latency, unknown runs left out', () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-matrix-compare-'));
  // Run a: 99 fast + 1 slow; run b: all medium. Averaged p99s would be about (fast|slow + medium) / 2.
  const a = [...Array(99).fill(1_000), 100_000];
  const b = Array(100).fill(10_000);
  const done = write(dir, [
    { cell: 'unordered', verdict: 'pass', reorders: 4, sent: 2000, e2e: a },
    { cell: 'unordered', verdict: 'pass', reorders: 0, sent: 1000, e2e: b },
    { cell: 'unordered', verdict: 'unknown', reorders: 500, sent: 1000, e2e: [9_000_000] },
    { cell: 'partition', verdict: 'unknown', reorders: 0, sent: 1000, e2e: [1] },
  ]);
  const p = plan(['partition', 'unordered'], 3);
  p.runs = done.map((d) => ({ slot: d.slot, cell: d.cell, repeat: d.repeat, seed: 1 })).concat([{ slot: 4, cell: 'partition', repeat: 1, seed: 1 }]);
  const c = compareMatrix(p, dir, done);
  const u = c.cells.find((x) => x.id === 'unordered')!;
  assert.equal(u.known, 2);
  assert.equal(u.unknown, 1);
  assert.equal(u.anomalies.reorder.appeared, 1);
  assert.equal(u.anomalies.reorder.of, 2);
  assert.equal(u.anomalies.reorder.interval[0].toFixed(4), '0.0945');
  assert.equal(u.anomalies.reorder.interval[1].toFixed(4), '0.9055');
  assert.deepEqual(u.anomalies.reorder.per1000, { median: 1, min: 0, max: 2, n: 2 });
  // Merged: 200 values, the p99 is 10 ms (the 198th value); the unknown run's 9 s is not in.
  const e2e = u.latency.endToEnd!;
  assert.equal(e2e.count, 200);
  assert.ok(Math.abs(e2e.p99 - 10_000) <= 10, `p99 ${e2e.p99}`);
  assert.ok(e2e.max < 200_000);
  assert.deepEqual(u.wrongState.naive, { perRun: { median: 1, min: 0, max: 2, n: 2 }, runsWrong: 1, of: 2, primary: true });
  assert.deepEqual(u.cpu.harnessPercent, { median: 15, min: 15, max: 15, n: 2 });
  // Each consumer's deliveries per run: c1 did the work, c2 stayed idle.
  assert.deepEqual(u.delivered, { c1: { median: 1500, min: 1000, max: 2000, n: 2 }, c2: { median: 0, min: 0, max: 0, n: 2 } });
  const part = c.cells.find((x) => x.id === 'partition')!;
  assert.equal(part.allUnknown, true);
  assert.equal(part.latency.endToEnd, null);
  assert.equal(part.anomalies.reorder.share, null);
  // Not complete: one planned run has no result. The verdict cannot be a pass.
  assert.equal(c.complete, false);
  assert.equal(c.verdict.status, 'unknown');
  assert.equal(matrixExitCode(c), 3);
  // matrix.json's schema, with the null figures of an all-unknown cell.
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(new URL('../../results/schema/matrix.v1.json', import.meta.url), 'utf8')) as object);
  assert.ok(validate(JSON.parse(JSON.stringify(c))), JSON.stringify(validate.errors));
  const md = comparisonMarkdown(c);
  assert.match(md, /\| mode=unordered \| 2 \+ 1 unknown \| 1\/2 50% \[9%–91%\] · 1\.00\/1k \(0–2\.00\)/);
  assert.match(md, /\| mode=partition \| 0 \+ 1 unknown of 2 \| unknown/);
  assert.match(md, /\| c1 1,500 \(1,000–2,000\) · c2 0 \|/);
  const html = matrixPage(c, (d) => `${d}/report.html`);
  assert.match(html, /data-cell="unordered" data-type="reorder" data-share="0.5"/);
  assert.match(html, /href="runs\/run-0\/report.html"/);
});

test('expectations across cells: unknown runs could have gone either way', () => {
  const p = plan(['key', 'unordered'], 5);
  const judge = (appeared: boolean[], unknown: number, share: string) =>
    judgeExpectations([{ where: { 'consumers.concurrency.mode': 'unordered' }, anomaly: 'reorder', share }], p.cells, {
      appeared: (cell) => (cell === 'unordered' ? appeared : [false]),
      unknownRuns: (cell) => (cell === 'unordered' ? unknown : 0),
    })[0];
  assert.equal(judge([true, true, true, true, true], 0, '>=0.9').status, 'held');
  assert.equal(judge([true, true, true, true, false], 0, '>=0.9').status, 'failed');
  // 9 of 9 known, 1 unknown: 90% at worst: held. 8 of 9 known, 1 unknown: 80% or 90%: unknown.
  assert.equal(judge(Array(9).fill(true), 1, '>=90%').status, 'held');
  assert.equal(judge([...Array(8).fill(true), false], 1, '>=90%').status, 'unknown');
  // Already two misses in 10: failed whatever the unknown one did.
  assert.equal(judge([...Array(7).fill(true), false, false], 1, '>=0.9').status, 'failed');
  assert.equal(judge([false, false], 1, '0').status, 'unknown');
  assert.equal(judge([false, true], 1, '0').status, 'failed');
  assert.equal(judge([], 2, '>0').status, 'unknown');
  // The scope: only the cells the where picks.
  const r = judge([true], 0, '1');
  assert.deepEqual(r.cells, ['unordered']);
  assert.equal(r.found, 1);
});

test('exit code: 0 when every expectation across cells held, 1 when one failed, 3 when the unknown runs decide', () => {
  const run = (fakes: Parameters<typeof write>[1], share: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'convoy-matrix-exit-'));
    const done = write(dir, fakes);
    const p = plan(['partition', 'unordered'], 2, [{ where: { 'consumers.concurrency.mode': 'unordered' }, anomaly: 'reorder', share }]);
    p.runs = done.map((d) => ({ slot: d.slot, cell: d.cell, repeat: d.repeat, seed: 1 }));
    return compareMatrix(p, dir, done);
  };
  const fakes = (second: 'pass' | 'unknown', reorders: number) => [
    { cell: 'partition', verdict: 'pass' as const, reorders: 0, sent: 1000, e2e: [1000] },
    { cell: 'unordered', verdict: 'pass' as const, reorders: 3, sent: 1000, e2e: [1000] },
    { cell: 'unordered', verdict: second, reorders, sent: 1000, e2e: [1000] },
  ];
  assert.equal(matrixExitCode(run(fakes('pass', 2), '1')), 0);
  const failed = run(fakes('pass', 0), '1');
  assert.equal(failed.verdict.status, 'fail');
  assert.equal(matrixExitCode(failed), 1);
  assert.equal(matrixExitCode(run(fakes('unknown', 0), '1')), 3);
  // A run that failed its own scenario's expectations fails the matrix too.
  assert.equal(matrixExitCode(run([...fakes('pass', 2).slice(0, 2), { cell: 'unordered', verdict: 'fail', reorders: 2, sent: 1000, e2e: [1000] }], '1')), 1);
});

test('comparison: consumer-group figures per cell (handovers, per member, unowned lane time), columns only when a run has them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-matrix-group-'));
  const g = (handovers: number, c1: number, unownedMs: number) => ({
    handovers,
    departures: [{ fault: 'kill-c2', consumer: 'c2', takenByOthers: handovers - c1 }, { fault: 'bounce-c1', consumer: 'c1', takenByOthers: c1 }],
    unownedMs,
    longestUnownedMs: unownedMs / 2,
  });
  const done = write(dir, [
    { cell: 'eager', verdict: 'pass', reorders: 0, sent: 1000, e2e: [1], group: g(4, 0, 9000) },
    { cell: 'eager', verdict: 'pass', reorders: 0, sent: 1000, e2e: [1], group: g(6, 0, 12000) },
    { cell: 'eager', verdict: 'unknown', reorders: 0, sent: 1000, e2e: [1], group: g(90, 90, 1) },
    { cell: 'cooperative', verdict: 'pass', reorders: 0, sent: 1000, e2e: [1] },
  ]);
  const p = plan(['eager', 'cooperative'], 3);
  p.runs = done.map((d) => ({ slot: d.slot, cell: d.cell, repeat: d.repeat, seed: 1 }));
  const c = compareMatrix(p, dir, done);
  const eager = c.cells.find((x) => x.id === 'eager')!;
  // The unknown run's 90 handovers from c1 are left out.
  assert.deepEqual(eager.group, {
    handovers: { median: 5, min: 4, max: 6, n: 2 },
    takenWhileAway: { 'kill-c2 (c2)': { median: 5, min: 4, max: 6, n: 2 }, 'bounce-c1 (c1)': { median: 0, min: 0, max: 0, n: 2 } },
    unownedMs: { median: 10500, min: 9000, max: 12000, n: 2 },
    longestUnownedMs: { median: 5250, min: 4500, max: 6000, n: 2 },
  });
  assert.equal(c.cells.find((x) => x.id === 'cooperative')!.group, null);
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(new URL('../../results/schema/matrix.v1.json', import.meta.url), 'utf8')) as object);
  assert.ok(validate(JSON.parse(JSON.stringify(c))), JSON.stringify(validate.errors));
  const md = comparisonMarkdown(c);
  assert.match(md, /\| lane handovers \| lane time unowned \|/);
  assert.match(md, /\| mode=eager \| 2 \+ 1 unknown \| [^|]+ \| 5 \(4–6\); taken while away: kill-c2 \(c2\) 5 \(4–6\), bounce-c1 \(c1\) 0 \| 10\.5 s \(9\.0 s–12\.0 s\) · longest 5\.3 s \(4\.5 s–6\.0 s\) \|/);
  assert.match(md, /\| mode=cooperative \| 1 \| [^|]+ \| — \| — \|/);
  // Without group figures in any run, no such columns.
  const plain = compareMatrix(p, dir, done.filter((d) => d.cell === 'cooperative'));
  assert.doesNotMatch(comparisonMarkdown(plain), /lane handovers/);
});
