/**
 * The client protocol's messages (TypeBox): how a broker client in its own process, in any
 * language, sits behind convoy's broker contract (harness/broker/contract.ts). One JSON object
 * per line over a Unix domain socket; docs/client-protocol.md says it in words, and the
 * published schema (results/schema/client-protocol.v1.json) comes from here.
 *
 * Times (`clockUs`, `at`) are the client's monotonic clock in microseconds; the worker maps
 * them to the run's clock from ping round trips (clock-map.ts).
 */
import { Type } from '../typebox.ts';
import type { Static, TSchema } from '@sinclair/typebox';
import { lineProtocolSchema } from '../line-protocol/schema.ts';

/** The protocol version this convoy speaks; a client of another one is refused. */
export const CLIENT_PROTOCOL_VERSION = 1;

const id = (description: string) => Type.Integer({ minimum: 0, description });
const opt = <T extends TSchema>(t: T) => Type.Optional(t);
const clientUs = (description: string) => Type.Number({ description: `${description} (µs, the client's monotonic clock)` });
const base64 = (description: string) => Type.String({ contentEncoding: 'base64', description });
const msg = <T extends string, P extends Record<string, TSchema>>(type: T, description: string, props: P) =>
  Type.Object({ type: Type.Literal(type), ...props }, { description, additionalProperties: true });

const Settlement = Type.Union([Type.Literal('ack'), Type.Literal('requeue'), Type.Literal('dead-letter'), Type.Literal('release')], {
  description: 'ack: done; requeue: give it back now; dead-letter: to the dead-letter destination; release: let its lock, visibility or session expire.',
});
/** The optional capabilities a client may have (the contract's optional methods). */
export const CLIENT_CAPABILITIES = ['refresh-metadata', 'errors-seen', 'describe-group', 'commits-later', 'headers'] as const;
export type ClientCapability = (typeof CLIENT_CAPABILITIES)[number];
const Capability = Type.Union(CLIENT_CAPABILITIES.map((c) => Type.Literal(c)));

// From the client.
export const Hello = msg('hello', 'The client\'s first line: the protocol version it speaks, who it is, what it can do, and its clock now.', {
  protocol: Type.Integer({ minimum: 1 }),
  client: Type.Object({ name: Type.String(), version: Type.String() }),
  capabilities: Type.Array(Capability),
  clockUs: clientUs('Its clock when it wrote this line'),
});
export const Ready = msg('ready', 'Configured and connected: a producer can send, a consumer has joined (it may hold no lane yet).', {});
export const Ack = msg('ack', 'A send the broker took.', {
  id: id('The send\'s id'),
  lane: opt(Type.String({ description: 'Partition, queue, message group or session it went to' })),
  offset: opt(Type.Number({ description: 'Its position in the lane, where the broker has one' })),
  at: clientUs('When the broker\'s answer came'),
});
export const Failure = msg('failure', 'A send that failed.', {
  id: id('The send\'s id'),
  message: Type.String(),
  definite: Type.Boolean({ description: 'True only when the broker guarantees nothing was written (a timeout or a lost connection is not definite)' }),
  at: clientUs('When it failed'),
});
export const DeliveryMsg = msg('delivery', 'A message the broker delivered. A lane\'s deliveries come in the lane\'s order.', {
  id: id('The delivery\'s id, unique for the connection'),
  lane: opt(Type.String()),
  offset: opt(Type.Number()),
  deliveryCount: opt(Type.Integer({ minimum: 1, description: 'How many times the broker says it delivered it (1: the first)' })),
  payload: base64('The message\'s bytes'),
  at: clientUs('When the client received it'),
});
const Withdrawn = Type.Array(id('A delivery id'), {
  description: 'Deliveries this client sent that are stale now (Kafka: a seek back, a revoked partition): the worker hands none of them to a handler that has not taken it yet, and settles none of them',
});
export const Settled = msg('settled', 'A settlement the client carried out (or could not: `error`).', {
  id: id('The delivery\'s id'),
  error: opt(Type.String()),
  withdrawn: opt(Withdrawn),
});
export const Group = msg('group', 'A change of the lanes this consumer holds.', {
  phase: Type.Union([Type.Literal('assigned'), Type.Literal('revoked')]),
  lanes: Type.Array(Type.String()),
  generation: opt(Type.Integer()),
  withdrawn: opt(Withdrawn),
});
export const BeforeCommit = msg('before-commit', 'A client that commits later (capability commits-later) asks before it tells the broker of settlements; it waits for commit-ok.', {
  id: id('The request\'s id'),
});
export const Reply = msg('reply', 'The answer to a request: its result, or why not.', {
  id: id('The request\'s id'),
  result: opt(Type.Unknown()),
  error: opt(Type.String()),
});
export const Pong = msg('pong', 'The answer to a ping: the client\'s clock when it read the ping.', { id: id('The ping\'s id'), clockUs: clientUs('Its clock') });
export const Log = msg('log', 'A line for the worker\'s log.', { line: Type.String() });
export const Fatal = msg('fatal', 'The client cannot go on; it exits after this line.', {
  message: Type.String(),
  log: Type.Array(Type.String(), { description: 'Its last log lines' }),
});
export const Closed = msg('closed', 'Closed cleanly after close; the client exits 0.', {});

// From the worker.
export const Configure = msg('configure', 'What the client is and where the broker is: the worker\'s first line, after the hello.', {
  role: Type.Union([Type.Literal('producer'), Type.Literal('consumer')]),
  id: Type.String({ description: 'The process\'s logical name (p-orders-1, c1): for client ids' }),
  endpoint: Type.Record(Type.String(), Type.Unknown(), { description: 'Where the broker is (bootstrap servers, URLs), as the broker module gives it' }),
  settings: Type.Record(Type.String(), Type.Unknown(), { description: 'The resolved broker settings of the scenario' }),
  names: Type.Object({ runId: Type.String(), prefix: Type.String({ description: 'The run\'s destinations are named from this' }) }),
  maxInFlight: Type.Integer({ minimum: 1, description: 'Producer: sends the worker leaves unanswered at most. Consumer: deliveries the client may have unsettled at most.' }),
});
export const Send = msg('send', 'A message to send. Several may be unanswered at once, up to maxInFlight.', {
  id: id('Its id; the ack or failure names it'),
  key: Type.String(),
  payload: base64('The message\'s bytes (the payload codec)'),
  headers: opt(Type.Record(Type.String(), Type.String(), {
    description: 'convoy\'s fields for a consumer under test (docs/consumer-under-test.md), to put on the message as the broker\'s headers; sent only to a client with the capability headers',
  })),
});
export const Settle = msg('settle', 'Settle a delivery; answered by settled.', { id: id('The delivery\'s id'), how: Settlement });
export const CommitOk = msg('commit-ok', 'Everything handled so far is durable: the client may commit.', { id: id('The before-commit\'s id') });
export const Request = msg('request', 'Ask for an optional capability; answered by reply.', {
  id: id('The request\'s id'),
  what: Type.Union([Type.Literal('refresh-metadata'), Type.Literal('errors-seen'), Type.Literal('describe-group')]),
});
export const Ping = msg('ping', 'Answered at once by pong: how the worker maps the client\'s clock to the run\'s.', { id: id('The ping\'s id') });
export const Close = msg('close', 'Close cleanly: stop receiving, finish what is in flight, answer closed and exit 0.', {});

export const FROM_CLIENT = [Hello, Ready, Ack, Failure, DeliveryMsg, Settled, Group, BeforeCommit, Reply, Pong, Log, Fatal, Closed] as const;
export const TO_CLIENT = [Configure, Send, Settle, CommitOk, Request, Ping, Close] as const;

export type FromClient = Static<(typeof FROM_CLIENT)[number]>;
export type ToClient = Static<(typeof TO_CLIENT)[number]>;
export type HelloMessage = Static<typeof Hello>;
export type ConfigureMessage = Static<typeof Configure>;

/** The published schema: a line is one of the messages, either way. */
export const clientProtocolSchema = lineProtocolSchema({
  shape: 'client-protocol',
  version: CLIENT_PROTOCOL_VERSION,
  title: `convoy client protocol, version ${CLIENT_PROTOCOL_VERSION}`,
  description: 'One line of the client protocol (docs/client-protocol.md): newline-delimited JSON over a Unix domain socket. fromClient: what a client writes; toClient: what the worker writes.',
  directions: { fromClient: FROM_CLIENT, toClient: TO_CLIENT },
});
