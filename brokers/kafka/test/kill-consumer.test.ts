/**
 * Consumer processes killed with SIGKILL on kafka, in each of its topologies
 * (test/helpers/kill-consumer.ts): whatever the dead processes held comes back.
 */
// @needs kafka
import { killConsumerTests } from '../../../test/helpers/kill-consumer.ts';

killConsumerTests('kafka');
