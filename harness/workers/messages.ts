/**
 * The worker protocol's messages (TypeBox): what the runner and its worker processes say to each
 * other, one JSON object per line over one byte stream (docs/worker-protocol.md). The published
 * schema (results/schema/worker-protocol.v1.json) and the messages' types (protocol.ts) come from
 * here; the names and the version are in message-names.ts, which a worker loads without this.
 */
import { Type } from '../typebox.ts';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { lineProtocolSchema } from '../line-protocol/schema.ts';
import { FROM_WORKER_TYPES, TO_WORKER_TYPES, WORKER_PROTOCOL_VERSION, type FromWorkerType, type ToWorkerType } from './message-names.ts';

const opt = <T extends TSchema>(t: T) => Type.Optional(t);
const count = (description: string) => Type.Number({ description });
const id = (description: string) => Type.Integer({ minimum: 0, description });
const msg = <T extends string, P extends Record<string, TSchema>>(type: T, description: string, props: P) =>
  Type.Object({ type: Type.Literal(type), ...props }, { description, additionalProperties: true });
const json = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

export const Phases = Type.Object({
  deliveries: count('Deliveries handled (settled)'),
  handlerMs: count('The handler\'s own wait (handler time and stalls), summed'),
  storeMs: count('The entity store, summed'),
  historyMs: count('The history writer, summed'),
  settleMs: count('The settlement, summed'),
  firstUs: count('Run clock (µs) of the first delivery received; 0 before'),
  lastUs: count('Run clock (µs) of the last settlement; 0 before'),
}, { description: 'A consumer\'s handling time by where it went; the rest of the busy window is the client\'s, the delivery gate\'s and the concurrency mode\'s' });

export const Stats = Type.Object({
  sent: count('Messages sent'),
  acked: count('Sends the broker took'),
  failed: count('Sends that failed definitely'),
  unknown: count('Sends whose outcome is not known'),
  applied: count('Consumers: process events with outcome ok'),
  errors: count('Handling errors'),
  stale: count('Consumers: applies the versioned store skipped, the key holding that version or a newer one (a live, group-wide count; the checker\'s after the run is the one that counts)'),
  inFlight: count('Sends unanswered, or deliveries unsettled, now'),
  behindMs: count('Producers: how far behind the open-loop schedule the last send was, ms'),
  loopLagMs: count('The worst event-loop delay since the last report, ms'),
  cpuPercent: count('CPU use since the last report, in percent of one core'),
  finished: Type.Boolean({ description: 'Producers: every planned message has been sent (and settled)' }),
  requests: opt(Type.Object({ sent: count('Requests sent'), ok: count('Answered 2xx'), failed: count('Answered otherwise, or not') }, { description: 'The load driver: HTTP requests' })),
  storeWrites: opt(count('Consumers: rows this process\'s strategy wrote to the shared store')),
  phases: opt(Phases),
  service: opt(Type.Object({
    started: count('Handling attempts it reported'),
    problems: Type.Array(Type.String(), { description: 'What makes the run incomplete (malformed or foreign reports), one line each' }),
    lastLog: Type.Array(Type.String(), { description: 'The service\'s last log lines' }),
  }, { description: 'A consumer under test, at its stop' })),
}, { description: 'A worker\'s counters: every 500 ms, and at its stop' });

const Role = Type.Union([
  Type.Literal('producer'), Type.Literal('consumer'), Type.Literal('instance'), Type.Literal('router'), Type.Literal('relay'), Type.Literal('load'),
], { description: 'producer or consumer; the order service\'s processes: instance, router (key-affine), relay (outbox), load (the load driver)' });

export const GatewayInit = Type.Object({
  storeFile: Type.String({ description: 'The service\'s SQLite store, shared by its instances and relays' }),
  lanes: Type.Integer({ minimum: 1, description: 'Outbox lanes (relays); an instance writes each order to laneOf(key, lanes)' }),
  lane: opt(Type.Integer({ minimum: 0, description: 'A relay: its lane' })),
  instanceUrls: opt(Type.Array(Type.String(), { description: 'The router: the instances\' base URLs, in order' })),
  targetUrls: opt(Type.Array(Type.String(), { description: 'The load driver: where requests go (the router or the instances)' })),
}, { description: 'The order service\'s processes (workload.gateway)' });

export const Init = Type.Object({
  role: Role,
  id: Type.String({ description: 'The process\'s name: p-orders-1, c1, ...' }),
  brokerKind: Type.String(),
  endpoint: json('Where the broker is, as its module gives it (plain JSON)'),
  settings: json('The resolved broker settings, with this worker\'s overrides merged in'),
  names: Type.Object({ runId: Type.String(), prefix: Type.String({ description: 'The run\'s destinations are named from this' }) }),
  scenario: json('The resolved scenario (defaults applied, durations in ms)'),
  historyFile: Type.String({ description: 'Where the worker writes its history (JSON Lines)' }),
  storeFile: Type.String({ description: 'The SQLite file of entity state the consumers share' }),
  store: opt(Type.Union([
    Type.Object({ kind: Type.Literal('sqlite'), file: Type.String() }),
    Type.Object({ kind: Type.Literal('postgres'), url: Type.String({ description: 'postgres://user[:password]@host:port/database' }) }),
  ], { description: 'Consumers: the entity store when it is not the SQLite file storeFile (consumers.store: postgres: a PostgreSQL database the run started)' })),
  ownerUrl: opt(Type.String({ description: 'Consumers: the entities\' owner service, when the run started one' })),
  producer: opt(Type.Object({ name: Type.String(), index: Type.Integer({ minimum: 0 }), of: Type.Integer({ minimum: 1 }) }, {
    description: 'A producer: which logical producer and which of its processes this is',
  })),
  gateway: opt(GatewayInit),
}, { description: 'What one worker is and does in one run' });

const Bytes = 'Bytes travel as base64 strings: the broker and its clients encode them';

/** The messages by name (message-names.ts has the names, in order; TypeScript holds the two to each other). */
const TO_WORKER_MESSAGES = {
  welcome: msg('welcome', 'The runner\'s answer to hello: it speaks the worker\'s protocol version and is the same convoy.', {
    protocol: Type.Integer({ minimum: 1 }),
    convoy: Type.String({ description: 'The runner\'s convoy version' }),
  }),
  refused: msg('refused', 'The runner\'s answer to a hello of another protocol version or another convoy: one line naming both sides\' versions. The worker exits 3.', {
    reason: Type.String(),
  }),
  init: msg('init', 'The worker\'s run: what it is, where the broker is, the scenario, its files.', {
    init: Init,
    reusable: opt(Type.Boolean({ description: 'When the run ends and left nothing alive, report idle and wait for the next init' })),
  }),
  start: msg('start', 'Producers: begin the open-loop schedule at this instant.', { startUs: Type.Number({ description: 'Run clock, µs' }) }),
  stop: msg('stop', 'Stop sending or consuming, flush the history, close the client; answered by stopped (then the worker exits, or reports idle).', {}),
  fault: msg('fault', 'A fault acting inside this process starts or ends: its kind\'s worker hook does it.', {
    kind: Type.String({ description: 'The fault kind (harness/faults/<kind>.ts)' }),
    phase: Type.Union([Type.Literal('start'), Type.Literal('end')]),
    args: opt(json('What the fault\'s start hands its hook')),
  }),
  'broker-reply': msg('broker-reply', `An in-process broker's answer to a broker-call with a call number. ${Bytes}.`, {
    call: id('The call\'s number'),
    ok: Type.Boolean(),
    value: opt(Type.Unknown()),
    error: opt(Type.String()),
  }),
  'broker-push': msg('broker-push', `What an in-process broker sends a client on its own (a delivery, a rebalance). ${Bytes}.`, {
    link: id('The client\'s link'),
    msg: Type.Unknown(),
  }),
} satisfies Record<ToWorkerType, TObject>;

const FROM_WORKER_MESSAGES = {
  hello: msg('hello', 'The worker\'s first line: the protocol version it speaks and its convoy version.', {
    protocol: Type.Integer({ minimum: 1 }),
    convoy: Type.String({ description: 'The worker\'s convoy version (package.json)' }),
    pid: Type.Integer({ minimum: 1, description: 'Its process id' }),
  }),
  ready: msg('ready', 'Started: a producer waits for start, a consumer has joined.', {
    detail: opt(json('What the runner needs of it (the router\'s URL, a service\'s pid)')),
  }),
  stats: msg('stats', 'Its counters, every 500 ms.', { stats: Stats }),
  log: msg('log', 'A line for the run\'s log.', { line: Type.String() }),
  fatal: msg('fatal', 'Why its role ended in error; the worker exits after this line and the run is unknown.', {
    message: Type.String(),
    detail: opt(Type.Array(Type.String())),
    exitCode: opt(Type.Integer()),
  }),
  stopped: msg('stopped', 'Stopped after stop: its last counters. The worker exits, or reports idle.', { stats: Stats }),
  idle: msg('idle', 'A reusable worker\'s run is over and left nothing alive: it waits for another init.', {}),
  'broker-open': msg('broker-open', 'A client of an in-process broker opens a link.', { link: id('The link\'s number, chosen by the worker') }),
  'broker-call': msg('broker-call', `A client's call on its link; without call, a tell: nothing is answered. ${Bytes}.`, {
    link: id('The link'),
    call: opt(id('The call\'s number: broker-reply names it')),
    method: Type.String(),
    args: Type.Unknown(),
  }),
  'broker-close': msg('broker-close', 'The client is done: the broker treats it as gone.', { link: id('The link') }),
} satisfies Record<FromWorkerType, TObject>;

export const TO_WORKER = TO_WORKER_TYPES.map((t) => TO_WORKER_MESSAGES[t]);
export const FROM_WORKER = FROM_WORKER_TYPES.map((t) => FROM_WORKER_MESSAGES[t]);

export type ToWorkerMessage = { [K in ToWorkerType]: Static<(typeof TO_WORKER_MESSAGES)[K]> }[ToWorkerType];
export type FromWorkerMessage = { [K in FromWorkerType]: Static<(typeof FROM_WORKER_MESSAGES)[K]> }[FromWorkerType];

/** The published schema: a line is one of the messages, either way. */
export const workerProtocolSchema = lineProtocolSchema({
  shape: 'worker-protocol',
  version: WORKER_PROTOCOL_VERSION,
  title: `convoy worker protocol, version ${WORKER_PROTOCOL_VERSION}`,
  description: 'One line of the worker protocol (docs/worker-protocol.md): newline-delimited JSON over one byte stream between the runner and a worker process. fromWorker: what a worker writes; toWorker: what the runner writes.',
  directions: { fromWorker: FROM_WORKER, toWorker: TO_WORKER },
});
