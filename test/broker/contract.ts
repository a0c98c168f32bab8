/**
 * The broker contract as tests: what every broker module must do, whichever broker it is. The
 * same tests run against the memory broker (brokers/memory/test/conformance.test.ts, in the
 * unit tests) and against every real broker (brokers/<name>/test/conformance.test.ts), each to
 * what it promises and the capabilities its admin offers, so the test double cannot drift from
 * the brokers it stands in for.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { BrokerAdmin, BrokerSettings, Deployment, Settlement } from '../../harness/broker/contract.ts';
import { loadBroker } from '../../harness/broker/registry.ts';
import { cacheDir } from '../../harness/runtime/cache.ts';
import { BrokerRun, brokerPerFile, quiet, waitFor } from '../helpers/broker-run.ts';

export interface ConformanceCase {
  broker: string;
  /** The broker section: its ordering topology, with short timeouts for a test. */
  settings: BrokerSettings;
  /** The topology promises per-key order to one consumer. */
  ordersKeys: boolean;
  /** Time within which a closed consumer's unsettled deliveries reach another consumer. */
  handOverMs: number;
  /** The admin can list the destination's lanes. */
  lanes: boolean;
}

const KEYS = ['k0', 'k1', 'k2', 'k3'];

export function conformance(c: ConformanceCase): void {
  describe(`broker contract: ${c.broker} ${JSON.stringify(c.settings)}`, () => {
    const fixture = brokerPerFile<Deployment, BrokerRun<BrokerSettings, BrokerAdmin>>(
      async () => {
        const mod = await loadBroker(c.broker);
        const workDir = mkdtempSync(join(tmpdir(), `convoy-conformance-${c.broker}-`));
        // The broker the test suite holds for this kind, when it holds one (bin/test-plan.js); else its own.
        return mod.deploy({ runtime: 'local', workDir, cacheDir: cacheDir(), log: quiet, reuse: true }, mod.resolveSettings(c.settings));
      },
      async (dep, _over, tag) => {
        const mod = await loadBroker(c.broker);
        return BrokerRun.open(mod, dep.endpoint, mod.resolveSettings(c.settings), tag);
      },
    );

    test('every message sent is delivered, with the lane it came from; acked ones are done', { timeout: 120_000 }, async () => {
      const run = await fixture.run({}, 'all');
      await run.consumer('c1', () => 'ack', { maxInFlight: 1 });
      await run.sendAll(await run.producer(), KEYS, 10);
      await waitFor(() => run.acked() === 40, 30_000, '40 messages acked');
      assert.ok(run.handled.every((h) => typeof h.lane === 'string' && h.lane.length > 0), 'a delivery without a lane');
      if (c.ordersKeys) assert.deepEqual(run.reorderedKeys(), []);
    });

    test('a requeued delivery comes back, and is counted as delivered again where the broker counts', { timeout: 120_000 }, async () => {
      const run = await fixture.run({}, 'requeue');
      let refused = false;
      await run.consumer('c1', (h): Settlement => {
        if (h.key === 'k0' && h.seq === 1 && !refused) {
          refused = true;
          return 'requeue';
        }
        return 'ack';
      }, { maxInFlight: 1 });
      await run.sendAll(await run.producer(), KEYS, 3);
      await waitFor(() => run.acked() === 12, 30_000, '12 messages acked');
      const k0first = run.of('k0').filter((h) => h.seq === 1);
      assert.ok(k0first.length >= 2, `k0#1 handled ${k0first.length} time(s)`);
      const again = k0first.at(-1)!.deliveryCount;
      if (again !== undefined) assert.ok(again >= 2, `redelivery counted ${again}`);
      if (c.ordersKeys) assert.equal(run.of('k0').find((h) => h.settled === 'ack')?.seq, 1, 'k0#2 overtook the requeued k0#1');
    });

    test('a consumer that goes away without settling: its deliveries reach another consumer', { timeout: 120_000 }, async () => {
      const run = await fixture.run({}, 'handover');
      const first = await run.consumer('c1', () => 'none', { maxInFlight: 1 });
      await run.sendAll(await run.producer(), KEYS, 2);
      await waitFor(() => run.handled.length > 0, 20_000, 'c1 to receive something');
      const held = run.handled.map((h) => `${h.key}#${h.seq}`);
      await first.close();
      await run.consumer('c2', () => 'ack', { maxInFlight: 1 });
      await waitFor(() => run.acked() === 8, c.handOverMs, 'all 8 acked by c2');
      const byC2 = new Set(run.handled.filter((h) => h.consumer === 'c2').map((h) => `${h.key}#${h.seq}`));
      for (const m of held) assert.ok(byC2.has(m), `${m}, held by c1, never reached c2`);
    });

    test(`admin capabilities: the ones the broker declares (capabilities()) are the ones its admin has, and they work`, { timeout: 120_000 }, async () => {
      const run = await fixture.run({}, 'lanes');
      const mod = await loadBroker(c.broker);
      // Declared once, by the broker module: what its admin offers must match it.
      const declared = mod.capabilities?.(mod.resolveSettings(c.settings), 'local');
      assert.ok(declared, `${c.broker} declares no capabilities()`);
      assert.equal(typeof run.admin.lanes === 'function', c.lanes, 'lanes()');
      assert.equal(typeof run.admin.addPartitions === 'function', declared.addPartitions === true, `addPartitions(): declared ${String(declared.addPartitions)}`);
      if (declared.redriveDeadLetters === true) assert.equal(typeof run.admin.redriveDeadLetters, 'function', 'redriveDeadLetters() declared but missing');
      if (!run.admin.lanes) return;
      const before = await run.admin.lanes();
      assert.ok(before.length >= 1, 'no lanes');
      if (!run.admin.addPartitions) return;
      await run.admin.addPartitions(before.length + 2);
      await waitFor(async () => (await run.admin.lanes!()).length === before.length + 2, 20_000, 'two more lanes');
    });
  });
}
