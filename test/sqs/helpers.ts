/** The SQS integration tests' pieces: one private ElasticMQ per test file, and runs on it. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqs from '../../brokers/sqs/index.ts';
import type { SqsAdmin } from '../../brokers/sqs/admin.ts';
import { deployLocal, type SqsDeployment } from '../../brokers/sqs/local.ts';
import { resolveSettings, type SqsSettings } from '../../brokers/sqs/settings.ts';
import { BrokerRun, quiet } from '../helpers/broker-run.ts';

export { brokerPerFile, payload, parse, sleep, waitFor, quiet, runNames, type Handled, type Handler } from '../helpers/broker-run.ts';

export async function startElasticMQ(): Promise<SqsDeployment> {
  const workDir = mkdtempSync(join(tmpdir(), 'convoy-sqs-test-'));
  return deployLocal({ runtime: 'local', workDir, cacheDir: '', log: quiet, reuse: false }, resolveSettings({ kind: 'sqs' }));
}

export type Run = BrokerRun<SqsSettings, SqsAdmin>;
export const Run = {
  create: (dep: SqsDeployment, over: Record<string, unknown>, tag: string): Promise<Run> =>
    BrokerRun.open<SqsSettings, SqsAdmin>(sqs, dep.endpoint, resolveSettings({ kind: 'sqs', ...over }), tag),
};
