/**
 * The agent protocol's messages (TypeBox): what a runner and a `convoy agent` on a load host say
 * to each other over TCP (or TLS), one JSON object per line (docs/agents.md). A runner opens one
 * control connection per agent, and one connection per worker it places there, which carries
 * the worker protocol once the agent has welcomed it. The published schema is
 * results/schema/agent-protocol.v2.json.
 */
import { Type } from '../typebox.ts';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { lineProtocolSchema } from '../line-protocol/schema.ts';

/** The agent protocol version this convoy speaks; a peer of another one is refused at the handshake. */
export const AGENT_PROTOCOL_VERSION = 2;

const opt = <T extends TSchema>(t: T) => Type.Optional(t);
const msg = <T extends string, P extends Record<string, TSchema>>(type: T, description: string, props: P) =>
  Type.Object({ type: Type.Literal(type), ...props }, { description, additionalProperties: true });
const workerId = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._#-]+$', description: 'The worker\'s process name in the run (p-orders-1, c1)' });
const runId = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._-]+$', description: 'The run\'s id' });

// ---- runner → agent
const Hello = msg('hello', 'The runner\'s first line on every connection: versions, the shared token, and what the connection is for', {
  protocol: Type.Integer({ description: 'The agent protocol version the runner speaks' }),
  convoy: Type.String({ description: 'The runner\'s convoy version' }),
  token: Type.String({ description: 'The shared token the agent was started with' }),
  runId,
  /** control: the run's requests; worker: the stream of the named worker, once spawned. */
  purpose: Type.Union([Type.Literal('control'), Type.Literal('worker')], { description: 'control: the run\'s requests; worker: this connection becomes the named worker\'s stream' }),
  worker: opt(workerId),
});
const Spawn = msg('spawn', 'Start a worker process for the run (the same worker code and fault hooks as a local one)', { worker: workerId });
/** The signals an agent sends its workers: kill, terminate, freeze and thaw. */
export const AGENT_SIGNALS = ['SIGKILL', 'SIGTERM', 'SIGSTOP', 'SIGCONT'] as const;
const Signal = msg('signal', 'Send a signal to a worker\'s process group (a kill or freeze fault, or the run\'s end)', {
  worker: workerId,
  signal: Type.Union(AGENT_SIGNALS.map((s) => Type.Literal(s))),
});
const Read = msg('read', 'Bytes of a file in the run\'s folder on the agent, from an offset (history lines as they grow)', {
  id: Type.Integer({ minimum: 0, description: 'Chosen by the runner; the answer carries it' }),
  file: Type.String({ description: 'Relative to the run\'s folder on the agent' }),
  offset: Type.Integer({ minimum: 0 }),
  max: opt(Type.Integer({ minimum: 1, description: 'At most this many bytes (default 4 MiB)' })),
});
const Ping = msg('ping', 'A heartbeat; the agent answers pong at once', { id: Type.Integer({ minimum: 0 }) });
const Clock = msg('clock', 'A clock reading: the agent answers clock-reading at once, with its run clock (the runner measures its offset from the round trip)', { id: Type.Integer({ minimum: 0 }) });
const Bye = msg('bye', 'The run is over: the agent stops what is left of it and forgets it', {});

// ---- agent → runner
const Welcome = msg('welcome', 'The agent took the hello', {
  protocol: Type.Integer(),
  convoy: Type.String(),
  agent: opt(Type.Object({
    host: Type.String({ description: 'The agent\'s host name' }),
    cores: Type.Integer({ minimum: 1 }),
    pid: Type.Integer({ minimum: 1 }),
    runDir: Type.String({ description: 'The run\'s folder on the agent: the workers\' files (histories, logs, a local store) are there' }),
  }, { description: 'On a control connection' })),
});
const Refused = msg('refused', 'The agent refused the hello: a wrong token, another version, an unknown worker; one line saying why', { reason: Type.String() });
const Spawned = msg('spawned', 'The worker\'s process runs; its stream waits for the runner\'s worker connection', { worker: workerId, pid: Type.Integer({ minimum: 1 }) });
const SpawnFailed = msg('spawn-failed', 'The worker could not be started', { worker: workerId, reason: Type.String() });
const Exited = msg('exited', 'A worker\'s process ended', {
  worker: workerId,
  code: Type.Union([Type.Integer(), Type.Null()]),
  signal: Type.Union([Type.String(), Type.Null()]),
});
const Data = msg('data', 'The answer to read: base64 bytes from the offset (empty at the file\'s end, or when it does not exist yet)', {
  id: Type.Integer({ minimum: 0 }),
  offset: Type.Integer({ minimum: 0 }),
  bytes: Type.String({ contentEncoding: 'base64' }),
  error: opt(Type.String({ description: 'Why the file cannot be read (outside the run\'s folder, not a file)' })),
});
const Pong = msg('pong', 'The answer to ping', { id: Type.Integer({ minimum: 0 }) });
const ClockReading = msg('clock-reading', 'The answer to clock: the agent\'s run clock when it answered, and how finely it reads it', {
  id: Type.Integer({ minimum: 0 }),
  at: Type.Integer({ description: 'The agent\'s run clock (µs since the epoch), read as it answers; its workers stamp with the same clock' }),
  granularity: Type.Integer({ minimum: 0, description: 'How finely the agent reads that clock (µs): added to the round trip\'s half as the reading\'s uncertainty' }),
});

export const TO_AGENT_MESSAGES = { hello: Hello, spawn: Spawn, signal: Signal, read: Read, ping: Ping, clock: Clock, bye: Bye } satisfies Record<string, TObject>;
export const FROM_AGENT_MESSAGES = { welcome: Welcome, refused: Refused, spawned: Spawned, 'spawn-failed': SpawnFailed, exited: Exited, data: Data, pong: Pong, 'clock-reading': ClockReading } satisfies Record<string, TObject>;
export const TO_AGENT = Object.values(TO_AGENT_MESSAGES);
export const FROM_AGENT = Object.values(FROM_AGENT_MESSAGES);

export type ToAgent = { [K in keyof typeof TO_AGENT_MESSAGES]: Static<(typeof TO_AGENT_MESSAGES)[K]> }[keyof typeof TO_AGENT_MESSAGES];
export type FromAgent = { [K in keyof typeof FROM_AGENT_MESSAGES]: Static<(typeof FROM_AGENT_MESSAGES)[K]> }[keyof typeof FROM_AGENT_MESSAGES];
export type AgentHello = Static<typeof Hello>;
export type AgentSignal = Static<typeof Signal>['signal'];

/** The published schema: a line is one of the messages, either way. */
export const agentProtocolSchema = lineProtocolSchema({
  shape: 'agent-protocol',
  version: AGENT_PROTOCOL_VERSION,
  title: `convoy agent protocol, version ${AGENT_PROTOCOL_VERSION}`,
  description: 'One line of the agent protocol (docs/agents.md): newline-delimited JSON over TCP or TLS between a runner and a convoy agent. toAgent: what the runner writes; fromAgent: what the agent writes. A worker connection carries the worker protocol after its welcome.',
  directions: { toAgent: TO_AGENT, fromAgent: FROM_AGENT },
});
