/** The SQS integration tests' pieces: the ElasticMQ the test suite holds (else one of the file's own), and runs on it. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqs from '../index.ts';
import type { SqsAdmin } from '../admin.ts';
import { deployLocal, type SqsDeployment } from '../local.ts';
import { resolveSettings, type SqsSettings } from '../settings.ts';
import { BrokerRun, quiet } from '../../../test/helpers/broker-run.ts';

export { brokerPerFile, payload, parse, sleep, waitFor, quiet, runNames, type Handled, type Handler } from '../../../test/helpers/broker-run.ts';

export async function startElasticMQ(): Promise<SqsDeployment> {
  const workDir = mkdtempSync(join(tmpdir(), 'convoy-sqs-test-'));
  return deployLocal({ runtime: 'local', workDir, cacheDir: '', log: quiet, reuse: true }, resolveSettings({ kind: 'sqs' }));
}

export type Run = BrokerRun<SqsSettings, SqsAdmin>;
export const Run = {
  create: (dep: SqsDeployment, over: Record<string, unknown>, tag: string): Promise<Run> =>
    BrokerRun.open<SqsSettings, SqsAdmin>(sqs, dep.endpoint, resolveSettings({ kind: 'sqs', ...over }), tag),
};
