/**
 * Consumer processes killed with SIGKILL on rabbitmq, in each of its topologies
 * (test/helpers/kill-consumer.ts): whatever the dead processes held comes back.
 */
// @needs rabbitmq
import { killConsumerTests } from '../../../test/helpers/kill-consumer.ts';

killConsumerTests('rabbitmq');
