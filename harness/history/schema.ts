/**
 * The history format's one source (TypeBox): the events writers append, one JSON object per
 * line, times in integer microseconds on the run's clock (harness/clock.ts). The TypeScript
 * types (events.ts) and the published JSON Schema (results/schema/history.v2.json) come from
 * here. Readers accept and ignore unknown fields and types.
 *
 * Versions: a history starts with a header event naming its format and version. Version 1 is
 * the first with a header; a history without one (written before it) has the same events and
 * reads as version 1 too. Version 2 adds `clock` events: the clocks of other hosts, measured,
 * which the checker maps those hosts' times by. A version-1 reader would ignore them and judge
 * events from several clocks as if they were one, so they are a new version, not an unknown
 * type to skip. `convoy check` refuses a version it does not know.
 */
import { Type } from '../typebox.ts';
import type { Static, TSchema } from '@sinclair/typebox';
import { schemaId } from '../schema-id.ts';

export const HISTORY_FORMAT = 'convoy.history';
/** The version this convoy writes. */
export const HISTORY_VERSION = 2;
/** Every version this convoy reads (a history without a header is read as the first). */
export const HISTORY_VERSIONS_READ: readonly number[] = [1, 2];

const us = (description: string) => Type.Integer({ description: `${description} (µs, run clock)` });
const opt = <T extends TSchema>(t: T) => Type.Optional(t);

export const HeaderEvent = Type.Object(
  {
    type: Type.Literal('header'),
    format: Type.Literal(HISTORY_FORMAT),
    version: Type.Integer({ minimum: 1, description: 'The format version; readers refuse one they do not know.' }),
  },
  { description: 'The first line of a history: its format and version.' },
);

export const SendEvent = Type.Object({
  type: Type.Literal('send'),
  key: Type.String(),
  producer: Type.String(),
  seq: Type.Integer(),
  at: us('When the client was handed the message'),
  intended: opt(us('Intended send time under the open-loop schedule (publish delay = at - intended)')),
  process: opt(Type.String({ description: 'The producer process that sent it (several may write for one logical producer).' })),
  size: opt(Type.Integer({ minimum: 0 })),
  entity: opt(Type.String({ description: 'Split keys (workload.keys.split): the entity whose event this sub-key message carries; absent when the key is the entity.' })),
  resend: opt(Type.Integer({ minimum: 1, description: "The producer's own re-send of this message (workload.producers[].resend): 1 for the first. Absent on the first send." })),
  version: opt(
    Type.Integer({
      minimum: 1,
      description:
        "Order-service runs (workload.gateway): the version the service numbered the event with. `seq` is then the event's place in its order's commit order (the service's truth, which order is judged by), and two events may share a version (duplicate versions).",
    }),
  ),
  event: opt(Type.Integer({ minimum: 1, description: "Order-service runs: the event's own id in the service's store (a relay that sends a row again sends the same id)." })),
});

export const AckEvent = Type.Object({
  type: Type.Literal('ack'),
  key: Type.String(),
  producer: Type.String(),
  seq: Type.Integer(),
  at: us('When the broker answered'),
  ok: Type.Union([Type.Boolean(), Type.Null()], { description: 'true written, false definitely not written, null unknown (a timeout).' }),
  lane: opt(Type.String()),
  offset: opt(Type.Number()),
  error: opt(Type.String()),
  sent: opt(us('When the send was made (publish latency = at - sent)')),
});

export const ProcessEvent = Type.Object({
  type: Type.Literal('process'),
  key: Type.Union([Type.String(), Type.Null()]),
  producer: Type.Union([Type.String(), Type.Null()]),
  seq: Type.Union([Type.Integer(), Type.Null()]),
  consumer: Type.String(),
  lane: opt(Type.String()),
  offset: opt(Type.Number()),
  received: us('When the consumer received it'),
  start: us('When the handler started'),
  end: opt(us('When the handler ended; absent when the attempt never completed (the consumer died)')),
  outcome: opt(Type.Union([Type.Literal('ok'), Type.Literal('error')])),
  effect: opt(
    Type.Union([Type.Literal('applied'), Type.Literal('skipped'), Type.Literal('rejected'), Type.Literal('skipped-stale'), Type.Literal('conflated')], {
      description:
        "What the consumers' strategy made of it: applied, skipped (stale or duplicate), rejected (a gap); skipped-stale in histories from before strategies were plug-ins; conflated: never handed to the strategy, dropped because a newer message of its key superseded it (concurrency mode conflate).",
    }),
  ),
  batch: opt(Type.Integer({ minimum: 1, description: 'Messages applied with this one in one store transaction, itself included (concurrency mode batch); absent: applied alone.' })),
  deliveryCount: opt(Type.Integer({ minimum: 0 })),
  intended: opt(us('The message\'s intended send time')),
  stamp: opt(Type.Number({ description: "The producing service's wall-clock stamp in the payload, ms since the epoch (its own clock, which a clock-skew fault shifts; not the run clock). Read by timestamp strategies (lww-timestamp) when they are replayed." })),
  held: opt(us("When the consumers' strategy held it back, unacknowledged, to apply it later (the resequencer): start and end are its release")),
});

export const FaultEvent = Type.Object({
  type: Type.Literal('fault'),
  name: Type.String(),
  kind: Type.String(),
  phase: Type.Union([Type.Literal('start'), Type.Literal('end')]),
  at: us('When the fault started or ended'),
  evidence: opt(Type.Unknown({ description: 'Evidence from the broker, proxy or OS that the fault really happened or was undone.' })),
});

export const RebalanceEvent = Type.Object({
  type: Type.Literal('rebalance'),
  at: us('When the consumer saw it'),
  consumer: Type.String(),
  lanes: opt(Type.Array(Type.String())),
  generation: opt(Type.Integer()),
  phase: opt(Type.Union([Type.Literal('assigned'), Type.Literal('revoked')])),
});

export const CommitEvent = Type.Object({
  type: Type.Literal('commit'),
  at: us('When the commit was made'),
  consumer: Type.String(),
  lane: Type.String(),
  offset: Type.Number(),
});

export const RemainingEvent = Type.Object(
  {
    type: Type.Literal('remaining'),
    at: us('When the broker was asked'),
    known: Type.Boolean({ description: 'false: the broker could not be asked (or cannot tell); every undelivered message is then unseen.' }),
    total: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Messages still held for the run; null when unknown.' }),
    lanes: opt(
      Type.Record(Type.String(), Type.Number(), {
        description:
          "The same per lane (partition, queue), where the broker can tell lanes apart, named as acks name them: an acked, undelivered message whose acks all name one lane listed here is unseen when that lane holds more than 0, and lost when it holds 0 and `total` is no more than the lanes' sum (nothing held off them, as in a dead-letter queue); others go by `total`.",
      }),
    ),
    detail: opt(Type.Unknown({ description: 'Broker-side figures behind the total (ready, unacked, lag, ...).' })),
    reason: opt(Type.String({ description: 'Why it is not known.' })),
  },
  { description: 'What the broker still held once the workers had stopped: tells lost (nothing held) from unseen.' },
);

export const MarkEvent = Type.Object(
  { type: Type.Literal('mark'), at: us('When'), name: Type.String(), detail: opt(Type.Unknown()) },
  { description: 'Harness-side markers (phase changes, producer metadata refresh...).' },
);

export const ClockEvent = Type.Object(
  {
    type: Type.Literal('clock'),
    host: Type.String({ description: 'The host measured: its agent\'s address (host:port)' }),
    at: us('The runner\'s clock at the middle of the round trip'),
    offset: Type.Integer({ description: 'The host\'s clock minus the runner\'s (µs): subtract it from a time the host stamped to read it on the runner\'s clock' }),
    uncertainty: Type.Integer({ minimum: 0, description: 'How far the offset can be off (µs): half the round trip, plus how finely the host reads its clock' }),
    workers: Type.Array(Type.String(), { description: 'The workers on that host (their `consumer` and `process` names in other events): every time they stamp is on its clock' }),
  },
  {
    description:
      'A measurement of another host\'s clock against the runner\'s, NTP-style, over the agent\'s control connection: at the start, every few seconds, and at the end. The checker maps every time a host\'s workers stamped to the runner\'s clock, with the offset interpolated between measurements (the drift), and counts an order between hosts that is closer than their uncertainties as uncertain. Workers no clock event names ran on the runner\'s host.',
  },
);

/** Every event but the header. */
export const HistoryEvent = Type.Union([SendEvent, AckEvent, ProcessEvent, FaultEvent, RebalanceEvent, CommitEvent, MarkEvent, RemainingEvent, ClockEvent]);
/** One line of a history: the header or an event. */
export const HistoryLine = Type.Union([HeaderEvent, ...HistoryEvent.anyOf]);

/** The published schema of one history line. */
export const historySchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: schemaId('history', HISTORY_VERSION),
  title: `convoy history line, version ${HISTORY_VERSION}`,
  description:
    'One line of a history.jsonl (JSON Lines). The first line is the header { type: "header", format: "convoy.history", version }; a history without one predates it and reads as version 1. Readers ignore unknown fields and event types.',
  ...HistoryLine,
};

export type HeaderEvent = Static<typeof HeaderEvent>;
export type SendEvent = Static<typeof SendEvent>;
export type AckEvent = Static<typeof AckEvent>;
export type ProcessEvent = Static<typeof ProcessEvent>;
export type FaultEvent = Static<typeof FaultEvent>;
export type RebalanceEvent = Static<typeof RebalanceEvent>;
export type CommitEvent = Static<typeof CommitEvent>;
export type RemainingEvent = Static<typeof RemainingEvent>;
export type MarkEvent = Static<typeof MarkEvent>;
export type ClockEvent = Static<typeof ClockEvent>;
export type HistoryEvent = Static<typeof HistoryEvent>;
export type HistoryLine = Static<typeof HistoryLine>;

/** The header line a writer starts a history with. */
export function historyHeader(): HeaderEvent {
  return { type: 'header', format: HISTORY_FORMAT, version: HISTORY_VERSION };
}
