/** The Pub/Sub integration tests' pieces: the pstest-server the test suite holds (else one of the file's own), and runs on it. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pubsub from '../index.ts';
import type { PubsubAdmin } from '../admin.ts';
import { deployLocal, type PubsubDeployment } from '../local.ts';
import { resolveSettings, type PubsubSettings } from '../settings.ts';
import { BrokerRun, quiet } from '../../../test/helpers/broker-run.ts';

export { brokerPerFile, payload, parse, sleep, waitFor, quiet, runNames, type Handled, type Handler } from '../../../test/helpers/broker-run.ts';

export async function startPstest(): Promise<PubsubDeployment> {
  const workDir = mkdtempSync(join(tmpdir(), 'convoy-pubsub-test-'));
  return deployLocal({ runtime: 'local', workDir, cacheDir: '', log: quiet, reuse: true }, resolveSettings({ kind: 'pubsub' }));
}

export type Run = BrokerRun<PubsubSettings, PubsubAdmin>;
export const Run = {
  create: (dep: PubsubDeployment, over: Record<string, unknown>, tag: string): Promise<Run> =>
    BrokerRun.open<PubsubSettings, PubsubAdmin>(pubsub, dep.endpoint, resolveSettings({ kind: 'pubsub', ...over }), tag),
};
