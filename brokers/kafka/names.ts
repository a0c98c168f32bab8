/**
 * The run's Kafka names, from RunNames.prefix (`convoy-<runId>`): one topic and one consumer
 * group per run, so leftovers of earlier runs can never be read as this run's messages.
 */
import type { RunNames } from '../../harness/broker/contract.ts';

/** The run's topic: a pre-created one the endpoint names (the external runtime's topic.name), else `convoy-<run-id>`. */
export function topicName(names: RunNames, endpoint?: { topic?: string }): string {
  return endpoint?.topic ?? names.prefix;
}

export function groupId(names: RunNames): string {
  return `${names.prefix}-group`;
}

export function clientId(names: RunNames, id: string): string {
  return `${names.prefix}-${id}`;
}
