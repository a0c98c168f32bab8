/**
 * Consumer processes killed with SIGKILL on servicebus, in each of its topologies
 * (test/helpers/kill-consumer.ts): whatever the dead processes held comes back.
 */
// @needs servicebus
import { killConsumerTests } from '../../../test/helpers/kill-consumer.ts';

killConsumerTests('servicebus');
