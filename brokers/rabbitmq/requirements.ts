/** What a local RabbitMQ node needs from the machine: the Debian package (Erlang comes with it). */
import { join } from 'node:path';
import { atPath, defineRequirement } from '../../harness/runtime/requirements.ts';
import { installedVersion, RABBITMQ_BIN_DIR } from './bin-dir.ts';

export const RABBITMQ_SERVER = defineRequirement({
  name: 'rabbitmq-server',
  what: 'RabbitMQ (a private node per run or per `brokers up`)',
  // Single active consumer and quorum queues, which the topologies use, are in 3.10.
  minVersion: '3.10',
  source: { kind: 'debian', packages: ['rabbitmq-server'] },
  locate: atPath(() => join(RABBITMQ_BIN_DIR, 'rabbitmq-server')),
  version: () => installedVersion(),
});
