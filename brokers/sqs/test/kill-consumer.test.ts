/**
 * Consumer processes killed with SIGKILL on sqs, in each of its topologies
 * (test/helpers/kill-consumer.ts): whatever the dead processes held comes back. Beside them, on
 * the same broker, a consumer under test (test/helpers/service-example.ts).
 */
// @needs sqs
import { killConsumerTests } from '../../../test/helpers/kill-consumer.ts';
import { serviceExampleTest } from '../../../test/helpers/service-example.ts';

killConsumerTests('sqs');
serviceExampleTest('sqs');
