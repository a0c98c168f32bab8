/**
 * Consumer processes killed with SIGKILL on pubsub, in each of its topologies
 * (test/helpers/kill-consumer.ts): whatever the dead processes held comes back.
 */
// @needs pubsub
import { killConsumerTests } from '../../../test/helpers/kill-consumer.ts';

killConsumerTests('pubsub');
