// A consumer process killed with SIGKILL right after it acknowledged messages: every message the
// broker saw acknowledged must already have its handling in the process's history file, or the
// checker reports messages as lost that the broker delivered (and blames the broker for it).
// @needs own servicebus beside
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceBusClient } from '@azure/service-bus';
import { startEmulator } from '../../brokers/servicebus/emulator/index.ts';
import { queueName } from '../../brokers/servicebus/endpoint.ts';
import { resolveSettings } from '../../brokers/servicebus/settings.ts';
import { parseScenario } from '../../harness/scenario/load.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { openStrategyStore } from '../../harness/consumer/strategies/open.ts';
import { WorkerHandle } from '../../harness/workers/handle.ts';
import { payload, runNames, sleep, waitFor } from '../helpers/broker-run.ts';

const SCENARIO = `
name: consumer-history
broker: { kind: servicebus, sessions: false, lockDurationMs: 60000 }
workload: { keys: { count: 4 }, rate: { kind: fixed, perSecond: 10 }, durationMs: 1s }
consumers: { processes: 1, handler: { kind: constant, ms: 0 } }
`;

test('a consumer killed right after its acks has every acked message in its history', { timeout: 60_000 }, async () => {
  const emulator = await startEmulator({ port: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'convoy-consumer-history-'));
  const names = runNames('history');
  const queue = queueName(names.prefix);
  emulator.createQueue(queue, { RequiresSession: false, LockDuration: 'PT60S' });
  const { scenario } = await parseScenario(SCENARIO, { catalogue: await scenarioCatalogue() });
  const storeFile = join(dir, 'state.sqlite');
  (await openStrategyStore(storeFile, scenario)).close();
  const historyFile = join(dir, 'c1.jsonl');
  const client = new ServiceBusClient(emulator.connectionString);
  const sender = client.createSender(queue);
  const sent = 60;
  await sender.sendMessages(Array.from({ length: sent }, (_, i) => ({ body: payload(`k${i % 4}`, i + 1) })));
  const worker = new WorkerHandle(
    {
      role: 'consumer', id: 'c1', brokerKind: 'servicebus',
      endpoint: { connectionString: emulator.connectionString },
      settings: resolveSettings(scenario.broker), names, scenario, historyFile, storeFile,
    },
    join(dir, 'c1.log'),
    () => {},
  );
  try {
    // Kill the process the moment the broker has every message completed (checked every
    // millisecond): well inside the history's periodic flush, so only a record written before
    // each ack survives.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const s = emulator.queueStats(queue);
      if (s && s.active === 0 && s.locked === 0) break;
      assert.ok(Date.now() < deadline && !worker.exited, 'the consumer did not complete every message');
      await sleep(1);
    }
    worker.signal('SIGKILL');
    await waitFor(() => worker.exited, 5_000, 'the worker to die');
    const handled = readFileSync(historyFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; seq?: number })
      .filter((e) => e.type === 'process');
    const seqs = new Set(handled.map((e) => e.seq));
    const missing = Array.from({ length: sent }, (_, i) => i + 1).filter((s) => !seqs.has(s));
    assert.deepEqual(missing, [], 'completed at the broker but not in the history');
  } finally {
    if (!worker.exited) worker.signal('SIGKILL');
    await sleep(50);
    await client.close();
    await emulator.close();
  }
});
