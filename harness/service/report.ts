/**
 * The report protocol of a consumer under test (docs/consumer-under-test.md): what a team's own
 * service writes, one JSON object per line, to the Unix socket named in CONVOY_REPORT_SOCKET or
 * the file named in CONVOY_REPORT_FILE. Its one source is here (TypeBox); the published JSON
 * Schema is results/schema/service-report.v1.json. convoy's own fields reach the service as
 * message headers (HEADER below), and the service hands them back unchanged in its reports.
 */
import { Type } from '../typebox.ts';
import type { Static } from '@sinclair/typebox';
import { schemaId } from '../schema-id.ts';

export const REPORT_PROTOCOL_VERSION = 1;

/** The headers convoy's producers add to every message of a run with a consumer under test. */
export const HEADER = {
  run: 'convoy-run',
  producer: 'convoy-producer',
  key: 'convoy-key',
  seq: 'convoy-seq',
} as const;

/** The environment variables convoy sets for the service's processes (besides the broker's own). */
export const ENV = {
  socket: 'CONVOY_REPORT_SOCKET',
  file: 'CONVOY_REPORT_FILE',
  process: 'CONVOY_PROCESS',
  run: 'CONVOY_RUN_ID',
  /** A folder of the run for the service's own files (its build's output). */
  dir: 'CONVOY_SERVICE_DIR',
} as const;

const Headers = Type.Record(Type.String(), Type.String(), {
  description: `The message's headers as the service got them (at least ${Object.values(HEADER).join(', ')}); others are ignored.`,
});
const At = Type.Integer({ minimum: 0, description: 'When, in microseconds since the Unix epoch (the system clock). Absent: when convoy read the line.' });

export const HelloReport = Type.Object(
  { type: Type.Literal('hello'), protocol: Type.Integer({ minimum: 1, description: 'The report protocol version (1).' }), process: Type.Optional(Type.String()) },
  { description: 'Optional, first: the protocol version the service writes.' },
);
export const ReadyReport = Type.Object(
  { type: Type.Literal('ready'), at: Type.Optional(At) },
  { description: 'The process has joined its consumer group (it holds its lanes, or is subscribed): convoy starts producing once every process said so.' },
);
export const StartReport = Type.Object(
  {
    type: Type.Literal('start'),
    headers: Headers,
    at: Type.Optional(At),
    lane: Type.Optional(Type.String({ description: 'Where the message came from: the Kafka partition number, as a string.' })),
    offset: Type.Optional(Type.Number({ description: 'Its position in the lane (the Kafka offset).' })),
  },
  { description: 'The service began handling one message.' },
);
export const EndReport = Type.Object(
  {
    type: Type.Literal('end'),
    headers: Headers,
    at: Type.Optional(At),
    outcome: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('error')], { description: 'ok (default): its effect is applied; error: the handling failed.' })),
  },
  { description: 'The handling of that message ended; matched to the oldest open start of the same message in this process.' },
);

export const ServiceReport = Type.Union([HelloReport, ReadyReport, StartReport, EndReport]);
export type ServiceReport = Static<typeof ServiceReport>;

export const serviceReportSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: schemaId('service-report', REPORT_PROTOCOL_VERSION),
  title: 'convoy consumer-under-test report, version 1',
  description:
    'One line a consumer under test writes (newline-delimited JSON) to the socket in CONVOY_REPORT_SOCKET or the file in CONVOY_REPORT_FILE: hello (optional), ready, then start and end of each message it handles, with the headers it got. See docs/consumer-under-test.md.',
  ...ServiceReport,
};
