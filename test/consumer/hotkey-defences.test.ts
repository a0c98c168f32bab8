/**
 * Hot-key defences on real runs (memory broker, through the runner in this process as `convoy
 * run` runs them: brokers/memory/test/run-here.ts): one key offered 100 msg/s
 * with a 40 ms handler, so one at a time it moves at most 25 msg/s (scenarios in hotkeys/).
 * Each scenario's own expectations (wrong states) must hold; beside them, the result's
 * `consumers` section: the hot key's backlog stays bounded under conflate and batch and grows
 * under the one-at-a-time twin; conflate counts what it dropped; batch shares transactions.
 * Comparisons between twins, never absolute timings.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runHere } from '../../brokers/memory/test/run-here.ts';
import { renderReport } from '../../harness/report/render.ts';

const DIR = new URL('./hotkeys/', import.meta.url).pathname;

interface Run {
  consumers: Consumers;
  workload: { entityOrder?: { outOfOrder: number; entitiesOutOfOrder: number } };
}

interface Consumers {
  mode: string;
  costs: { handled: number; conflated: number; applied: number; messagesPerTransaction: number; transactionsPerMessage: number };
  hotKey: { key: string; backlogMax: number; backlogGrowthPerSecond: number; handledPerSecond: number };
}

const results = new Map<string, Consumers>();
const runs = new Map<string, Run>();
const reports = new Map<string, string>();

async function run(name: string): Promise<void> {
  const { result, runDir } = await runHere(join(DIR, `${name}.yaml`));
  // What `convoy run` exits 0 on: every expectation of the scenario held.
  assert.equal(result.verdict.status, 'pass', `${name}: ${JSON.stringify(result.verdict)}`);
  const res = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as Run;
  runs.set(name, res);
  // The report `convoy run` writes, rendered from this run's files.
  reports.set(name, renderReport(res as never, join(runDir, 'history.jsonl')));
  results.set(name, res.consumers);
}

describe('hot-key defences on the memory broker', () => {
  before(async () => {
    // Three at a time, the two slow ones first (one at a time, a hot key's backlog takes about
    // 16 s to drain; the others end in about 6 s): the runs mostly wait on their schedules.
    const queue = ['one-at-a-time', 'one-at-a-time-wallet', 'conflate-order', 'conflate-wallet', 'batch-wallet', 'split-order'];
    const lane = async () => {
      for (let name = queue.shift(); name; name = queue.shift()) await run(name);
    };
    await Promise.all([lane(), lane(), lane()]);
  });

  test('conflate on orders with whole-state events: no wrong state, the hot key backlog bounded where one at a time it grows', () => {
    const conflate = results.get('conflate-order')!;
    const control = results.get('one-at-a-time')!;
    assert.equal(conflate.hotKey.key, 'k0');
    assert.ok(conflate.costs.conflated > 0, 'conflate dropped and counted superseded messages');
    assert.equal(conflate.costs.applied + conflate.costs.conflated, conflate.costs.handled);
    assert.equal(control.costs.conflated, 0);
    assert.ok(control.hotKey.backlogGrowthPerSecond > 0, `one at a time the backlog grows (${control.hotKey.backlogGrowthPerSecond}/s)`);
    assert.ok(conflate.hotKey.backlogMax * 2 < control.hotKey.backlogMax, `conflate backlog max ${conflate.hotKey.backlogMax} against ${control.hotKey.backlogMax} one at a time`);
  });

  test('conflate on a ledger: wrong balances (the scenario expects them), its control twin none', () => {
    // The scenarios' wrong-state expectations held (exit 0): >0 under conflate, 0 one at a time.
    assert.ok(results.get('conflate-wallet')!.costs.conflated > 0);
    assert.equal(results.get('one-at-a-time-wallet')!.costs.conflated, 0);
  });

  test('batch applies a key\'s queued changes in shared transactions, balances right, backlog bounded', () => {
    const batch = results.get('batch-wallet')!;
    const control = results.get('one-at-a-time-wallet')!;
    assert.equal(batch.mode, 'batch');
    assert.ok(batch.costs.messagesPerTransaction > 1, `messages per transaction ${batch.costs.messagesPerTransaction}`);
    assert.ok(batch.costs.transactionsPerMessage < control.costs.transactionsPerMessage);
    assert.equal(control.costs.messagesPerTransaction, 1);
    assert.ok(batch.hotKey.handledPerSecond > control.hotKey.handledPerSecond * 1.5, `the hot key handled ${batch.hotKey.handledPerSecond}/s in batches against ${control.hotKey.handledPerSecond}/s one at a time`);
    assert.ok(batch.hotKey.backlogMax * 2 < control.hotKey.backlogMax, `batch backlog max ${batch.hotKey.backlogMax} against ${control.hotKey.backlogMax} one at a time`);
  });

  test('each run\'s report shows its own consumers section: the defence\'s bounded backlog, the control\'s growing one', () => {
    for (const name of ['conflate-order', 'one-at-a-time']) {
      const c = results.get(name)!;
      const html = reports.get(name)!;
      assert.match(html, new RegExp(`<tr data-mode="${c.mode}" data-strategy="versioned"><td>${c.mode}</td>`), name);
      assert.match(html, new RegExp(`data-consumers="backlogMax" data-value="${c.hotKey.backlogMax}">max ${c.hotKey.backlogMax.toLocaleString('en-US')},`), name);
    }
    assert.match(reports.get('conflate-order')!, new RegExp(`<td class="num">${results.get('conflate-order')!.costs.conflated.toLocaleString('en-US')}</td>`), 'the conflated count');
  });

  test('split keys: per sub-key nothing out of order (the scenario expects it), per entity the events commit out of order', () => {
    const split = runs.get('split-order')!;
    assert.ok(split.consumers.hotKey.key.startsWith('k0/'), `the busiest key is a sub-key of the hot entity (${split.consumers.hotKey.key})`);
    assert.ok(split.workload.entityOrder!.outOfOrder > 0, 'across its sub-keys an entity loses order');
    assert.equal(runs.get('one-at-a-time')!.workload.entityOrder, undefined, 'unsplit runs have no entity-level section');
  });
});
