/**
 * Consumer processes killed with SIGKILL on sqs, in each of its topologies
 * (test/helpers/kill-consumer.ts): whatever the dead processes held comes back.
 */
// @needs sqs
import { killConsumerTests } from '../../../test/helpers/kill-consumer.ts';

killConsumerTests('sqs');
