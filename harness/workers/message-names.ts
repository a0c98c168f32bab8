/**
 * The worker protocol's version and its messages' names, without their schemas: a worker
 * process needs these at run time, and loads no schema library for them (messages.ts has the
 * schemas, made for each name here).
 */

/** The worker protocol version this convoy speaks; a peer of another one is refused at the handshake. */
export const WORKER_PROTOCOL_VERSION = 1;

/** The worker's file descriptor its stream to the runner is on (the runner's pipe, made at the process's start). */
export const RUNNER_FD = 3;

/** What the runner writes to a worker, in the order docs/worker-protocol.md describes them. */
export const TO_WORKER_TYPES = ['welcome', 'refused', 'init', 'start', 'stop', 'fault', 'broker-reply', 'broker-push'] as const;
/** What a worker writes to the runner. */
export const FROM_WORKER_TYPES = ['hello', 'ready', 'stats', 'log', 'fatal', 'stopped', 'idle', 'broker-open', 'broker-call', 'broker-close'] as const;

export type ToWorkerType = (typeof TO_WORKER_TYPES)[number];
export type FromWorkerType = (typeof FROM_WORKER_TYPES)[number];
