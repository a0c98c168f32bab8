/**
 * A consumer under test on a queue broker (docs/consumer-under-test.md): the fixed twin of the
 * broker's example (examples/consumer-under-test/<broker>-node/fixed.yaml, a freeze of c1 on
 * an ordered destination) runs once on the suite's broker. The service gets its connection from
 * the broker's link, reads convoy's fields from the broker's own message attributes or
 * properties, and reports them: both processes handle messages, each lane is the key (message
 * group, session, ordering key), nothing is lost and no key is reordered. The buggy twins run
 * nightly (workloads/nightly/service-*.yaml).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseScenario } from '../../harness/scenario/load.ts';
import { runOnce } from '../../harness/runner/run-and-analyze.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { ROOT, readHistory } from '../runner/helpers.ts';

export function serviceExampleTest(broker: string): void {
  test(`a consumer under test on ${broker}: its fixed example keeps per-key order through a freeze, reporting the fields convoy put on each message`, async () => {
    // Shorter than the example (the suite's time): 1.5 s of sending, a 1 s freeze.
    const text = `
extends: ${join(ROOT, `examples/consumer-under-test/${broker}-node/fixed.yaml`)}
workload: { rate: { kind: fixed, perSecond: 100 }, durationMs: 1500ms }
faults: [{ name: stall-c1, atMs: 300ms, durationMs: 1s }]
`;
    const { scenario } = await parseScenario(text, { catalogue: await scenarioCatalogue(), file: join(ROOT, `examples/consumer-under-test/${broker}-node/ci.yaml`) });
    assert.equal(scenario.broker.kind, broker);
    const { result, runDir } = (await runOnce(scenario, { runtime: 'local', resultsDir: mkdtempSync(join(tmpdir(), 'convoy-service-')), keep: false, allowDestructive: false, repeat: 1, quiet: true })) as { result: Record<string, any>; runDir: string };
    const a = result.anomalies;
    assert.equal(result.verdict.status, 'pass', `${result.verdict.reasons.join('; ')} (lost ${a.lost.count}, reorder ${a.reorder.count})`);
    assert.deepEqual([a.lost.count, a.reorder.count, a.overlap.count], [0, 0, 0]);
    const history = readHistory(runDir) as Record<string, any>[];
    const handled = history.filter((e) => e.type === 'process' && e.outcome === 'ok');
    const sent = new Set(history.filter((e) => e.type === 'send').map((e) => `${e.key}#${e.seq}`));
    assert.ok(sent.size >= 100 && [...sent].every((m) => handled.some((h) => `${h.key}#${h.seq}` === m)), 'every message sent was reported handled');
    for (const c of ['c1', 'c2']) assert.ok(handled.some((h) => h.consumer === c), `${c} handled messages`);
    assert.ok(handled.every((h) => h.lane === h.key), 'each lane is the key, as the service reported it');
  });
}
