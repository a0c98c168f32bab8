/**
 * The history format's event types, derived from their one source, harness/history/schema.ts
 * (TypeBox; the published JSON Schema is results/schema/history.v2.json). The checker defines
 * what each field means. Readers must accept and ignore unknown fields and types.
 */
export type {
  AckEvent,
  ClockEvent,
  CommitEvent,
  FaultEvent,
  HeaderEvent,
  HistoryEvent,
  HistoryLine,
  MarkEvent,
  ProcessEvent,
  RebalanceEvent,
  RemainingEvent,
  SendEvent,
} from './schema.ts';
