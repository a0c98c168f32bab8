// Loads queue definitions in the shape of Microsoft's Service Bus emulator Config.json
// (UserConfig.Namespaces[].Queues[].Properties) and normalises queue properties.
import { readFileSync } from "node:fs";
import { parseDuration } from "./duration.ts";

/** Queue properties as written in Config.json (every field optional here). */
export interface QueuePropertiesInput {
  RequiresSession?: boolean;
  MaxDeliveryCount?: number;
  LockDuration?: string;
  DefaultMessageTimeToLive?: string;
  DeadLetteringOnMessageExpiration?: boolean;
  RequiresDuplicateDetection?: boolean;
  DuplicateDetectionHistoryTimeWindow?: string;
  /** Accepted for compatibility with Microsoft's emulator config; not implemented. */
  ForwardTo?: string;
  ForwardDeadLetteredMessagesTo?: string;
}

/** Normalised queue properties the broker works with (durations in milliseconds). */
export interface QueueProperties {
  requiresSession: boolean;
  maxDeliveryCount: number;
  lockDurationMs: number;
  defaultMessageTtlMs: number;
  deadLetteringOnMessageExpiration: boolean;
  requiresDuplicateDetection: boolean;
  duplicateDetectionWindowMs: number;
}

export interface QueueDefinition {
  name: string;
  properties: QueueProperties;
}

export interface EmulatorConfig {
  namespace: string;
  queues: QueueDefinition[];
  /** Config entries that were read but are not supported (topics, forwarding), for a startup warning. */
  ignored: string[];
}

// Defaults of Microsoft's emulator, so a Config.json means the same thing to both.
export const DEFAULT_QUEUE_PROPERTIES: QueueProperties = {
  requiresSession: false,
  maxDeliveryCount: 3,
  lockDurationMs: 60_000,
  defaultMessageTtlMs: 3_600_000,
  deadLetteringOnMessageExpiration: false,
  requiresDuplicateDetection: false,
  duplicateDetectionWindowMs: 20_000,
};

function expectType(value: unknown, type: "boolean" | "number" | "string", field: string): void {
  if (value !== undefined && typeof value !== type) {
    throw new Error(`queue property ${field} must be a ${type}, got ${JSON.stringify(value)}`);
  }
}

/** Turns Config.json-style properties into normalised ones, filling defaults and validating types. */
export function queueProperties(input: QueuePropertiesInput = {}): QueueProperties {
  expectType(input.RequiresSession, "boolean", "RequiresSession");
  expectType(input.MaxDeliveryCount, "number", "MaxDeliveryCount");
  expectType(input.LockDuration, "string", "LockDuration");
  expectType(input.DefaultMessageTimeToLive, "string", "DefaultMessageTimeToLive");
  expectType(input.DeadLetteringOnMessageExpiration, "boolean", "DeadLetteringOnMessageExpiration");
  expectType(input.RequiresDuplicateDetection, "boolean", "RequiresDuplicateDetection");
  expectType(input.DuplicateDetectionHistoryTimeWindow, "string", "DuplicateDetectionHistoryTimeWindow");
  const d = DEFAULT_QUEUE_PROPERTIES;
  const props: QueueProperties = {
    requiresSession: input.RequiresSession ?? d.requiresSession,
    maxDeliveryCount: input.MaxDeliveryCount ?? d.maxDeliveryCount,
    lockDurationMs: input.LockDuration !== undefined ? parseDuration(input.LockDuration) : d.lockDurationMs,
    defaultMessageTtlMs:
      input.DefaultMessageTimeToLive !== undefined ? parseDuration(input.DefaultMessageTimeToLive) : d.defaultMessageTtlMs,
    deadLetteringOnMessageExpiration: input.DeadLetteringOnMessageExpiration ?? d.deadLetteringOnMessageExpiration,
    requiresDuplicateDetection: input.RequiresDuplicateDetection ?? d.requiresDuplicateDetection,
    duplicateDetectionWindowMs:
      input.DuplicateDetectionHistoryTimeWindow !== undefined
        ? parseDuration(input.DuplicateDetectionHistoryTimeWindow)
        : d.duplicateDetectionWindowMs,
  };
  if (!Number.isInteger(props.maxDeliveryCount) || props.maxDeliveryCount < 1) {
    throw new Error(`MaxDeliveryCount must be a positive integer, got ${props.maxDeliveryCount}`);
  }
  // Microsoft's emulator insists on PT5S..PT5M; we allow shorter locks because fault scenarios need them.
  if (props.lockDurationMs < 100) throw new Error(`LockDuration must be at least 100 ms`);
  if (props.defaultMessageTtlMs <= 0) throw new Error(`DefaultMessageTimeToLive must be positive`);
  return props;
}

interface RawQueue {
  Name?: unknown;
  Properties?: QueuePropertiesInput;
}
interface RawNamespace {
  Name?: unknown;
  Queues?: RawQueue[];
  Topics?: Array<{ Name?: unknown }>;
}

/** Parses a Config.json document (already JSON-decoded). */
export function parseConfig(doc: unknown): EmulatorConfig {
  const namespaces = (doc as { UserConfig?: { Namespaces?: RawNamespace[] } })?.UserConfig?.Namespaces;
  if (!Array.isArray(namespaces)) throw new Error("config needs UserConfig.Namespaces[]");
  const queues: QueueDefinition[] = [];
  const ignored: string[] = [];
  const seen = new Set<string>();
  for (const ns of namespaces) {
    for (const q of ns.Queues ?? []) {
      if (typeof q.Name !== "string" || q.Name === "") throw new Error("every queue needs a Name");
      const key = q.Name.toLowerCase();
      if (seen.has(key)) throw new Error(`queue ${q.Name} is defined twice`);
      seen.add(key);
      queues.push({ name: q.Name, properties: queueProperties(q.Properties) });
      if (q.Properties?.ForwardTo || q.Properties?.ForwardDeadLetteredMessagesTo) {
        ignored.push(`forwarding on queue ${q.Name}`);
      }
    }
    for (const t of ns.Topics ?? []) ignored.push(`topic ${String(t.Name)}`);
  }
  const name = typeof namespaces[0]?.Name === "string" ? (namespaces[0].Name as string) : "sbemulatorns";
  return { namespace: name, queues, ignored };
}

/** Reads and parses a Config.json file. */
export function loadConfigFile(path: string): EmulatorConfig {
  return parseConfig(JSON.parse(readFileSync(path, "utf8")));
}
