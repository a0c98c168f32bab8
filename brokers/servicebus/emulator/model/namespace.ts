// The namespace: queues by name (case-insensitive, like the service) and address resolution.
import { queueProperties, type QueuePropertiesInput, type QueueProperties } from "../config.ts";
import { BrokerError, Condition } from "./errors.ts";
import { DEAD_LETTER_SUFFIX, QueueEntity } from "./queue.ts";

export interface ResolvedEntity {
  queue: QueueEntity;
  /** The entity addressed: the queue itself or its dead-letter sub-queue. */
  entity: QueueEntity;
}

/** Strips "amqps://host/" style prefixes and a leading slash from a link address. */
export function entityPath(address: string): string {
  return address.replace(/^[a-z]+:\/\/[^/]*\//i, "").replace(/^\/+/, "");
}

export class Namespace {
  private readonly queues = new Map<string, QueueEntity>();
  private readonly deleteListeners = new Set<(queue: QueueEntity) => void>();

  constructor(readonly name = "sbemulatorns") {}

  createQueue(name: string, input: QueuePropertiesInput | QueueProperties = {}): QueueEntity {
    if (!/^[A-Za-z0-9][A-Za-z0-9._\-/]*$/.test(name) || name.includes("$")) {
      throw new BrokerError(Condition.argumentError, `Invalid queue name ${JSON.stringify(name)}.`);
    }
    const key = name.toLowerCase();
    if (this.queues.has(key)) {
      throw new BrokerError(Condition.argumentError, `The messaging entity '${name}' already exists.`);
    }
    const props = "lockDurationMs" in input ? (input as QueueProperties) : queueProperties(input as QueuePropertiesInput);
    const queue = new QueueEntity(name, props);
    this.queues.set(key, queue);
    return queue;
  }

  /** Deletes a queue and its dead-letter queue; links attached to it are told through onDelete. */
  deleteQueue(name: string): boolean {
    const key = name.toLowerCase();
    const queue = this.queues.get(key);
    if (!queue) return false;
    this.queues.delete(key);
    queue.close();
    for (const listener of this.deleteListeners) listener(queue);
    return true;
  }

  onDelete(listener: (queue: QueueEntity) => void): void {
    this.deleteListeners.add(listener);
  }

  getQueue(name: string): QueueEntity | undefined {
    return this.queues.get(name.toLowerCase());
  }

  list(): QueueEntity[] {
    return [...this.queues.values()];
  }

  /** Resolves "queue" or "queue/$DeadLetterQueue" (any case); throws amqp:not-found otherwise. */
  resolve(address: string): ResolvedEntity {
    const path = entityPath(address);
    const lower = path.toLowerCase();
    const dlqSuffix = DEAD_LETTER_SUFFIX.toLowerCase();
    const isDlq = lower.endsWith(dlqSuffix);
    const queueName = isDlq ? path.slice(0, -DEAD_LETTER_SUFFIX.length) : path;
    const queue = this.queues.get(queueName.toLowerCase());
    if (!queue) {
      throw new BrokerError(
        Condition.notFound,
        `The messaging entity '${this.name}:Queue:${path}' could not be found.`,
      );
    }
    return { queue, entity: isDlq ? (queue.deadLetterQueue as QueueEntity) : queue };
  }

  close(): void {
    for (const q of this.queues.values()) q.close();
    this.queues.clear();
  }
}
