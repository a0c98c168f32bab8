import { readFileSync } from 'node:fs';
import type { BrokerAdmin, BrokerCapabilities, Capability, Deployment, ProducerClient, RunNames, RuntimeKind, Settlement } from '../broker/contract.ts';
import type { FaultSpec } from '../spec/types.ts';
import type { WorkerHandle } from '../workers/handle.ts';
import type { OwnerControl } from '../owner/service.ts';
import { signalOwnGroup } from '../workers/own-group.ts';

/**
 * A fault kind is one file in harness/faults/ default-exporting a FaultKind. Each fault owns
 * its undo: start() returns the function that ends it, which the timeline calls at the end of
 * the window and the clean-up calls if the run stops early. Evidence is what the broker,
 * proxy or OS said, not the harness's own flag.
 */
export interface FaultContext {
  runtime: RuntimeKind;
  allowDestructive: boolean;
  deployment: Deployment;
  admin: BrokerAdmin;
  /** The run's names (its destinations and client ids are named after `prefix`). */
  names: RunNames;
  producers(): WorkerHandle[];
  consumers(): WorkerHandle[];
  /** The consumers' shared state store (SQLite; harness/consumer/entity-store.ts). */
  storeFile: string;
  /** The entities' owner service, when the run started one (harness/owner/service.ts). */
  owner?: OwnerControl;
  /** Starts a fresh process for a consumer that was killed (same consumer name). */
  restartConsumer(id: string): Promise<void>;
  /** Order-service runs (workload.gateway): its outbox relays, and a fresh one for a killed relay. */
  gateway?: { relays(): WorkerHandle[]; restartRelay(id: string): Promise<void> };
  log(line: string): void;
}

export interface StartedFault {
  evidence: unknown;
  /**
   * Undo the fault; resolves with evidence that it is undone. Must be safe to call twice. An
   * evidence object with `unexercised` (why) says the fault never acted: the run is incomplete.
   */
  end(): Promise<unknown>;
}

export interface FaultKind {
  kind: string;
  /**
   * JSON Schema for the kind's own fields (besides name, kind, atMs, durationMs). Each field has
   * a `description` saying what it means and its default: docs/faults.md is made from them.
   */
  schema: Record<string, unknown>;
  /** The kind in the fault reference (docs/faults.md, harness/schemas/fault-reference.ts). */
  doc: FaultDoc;
  /** Changes or hurts the target: refused on external brokers without --allow-destructive. */
  destructive: boolean;
  /** Acts on the entities' owner service: the run starts one when a scenario has such a fault. */
  usesOwner?: boolean;
  /**
   * Its consumer hook (`worker.consumer`) works on a consumer under test too (consumers.service,
   * docs/consumer-under-test.md): it acts on the process, not inside convoy's handling. A kind
   * with a consumer hook and without this is refused in such a scenario.
   */
  underTest?: boolean;
  start(spec: FaultSpec, ctx: FaultContext): Promise<StartedFault>;
}

/** What the fault reference says of a kind, besides its fields. */
export interface FaultDoc {
  /** What it does, a sentence or three. */
  summary: string;
  /** What it needs beyond its fields (brokers, settings, runtime, scenario), when anything. */
  needs?: string;
  /** What to know before using it (surprises, settings to change). */
  notes?: string;
  /** One fault entry as a YAML flow mapping: `{ name: ..., kind: ..., atMs: 3s, ... }`. */
  example: string;
  /**
   * Sections of the smallest scenario the example works in, as YAML, besides a memory broker
   * with three consumers (the reference's test loads the example in it).
   */
  exampleIn?: string;
}

/** A fault's `consumer` field: one consumer process, by name or as the busiest. */
export const CONSUMER_FIELD = {
  type: 'string',
  description: 'c1, c2, ... cN (N is consumers.processes) or busiest: the live process that had handled the most messages when the fault starts.',
} as const;

/** Finds a consumer worker by name (or "busiest") or fails with the list of names. */
export function consumerNamed(ctx: FaultContext, name: unknown): WorkerHandle {
  const all = ctx.consumers();
  if (name === 'busiest') {
    const live = all.filter((c) => !c.exited);
    if (live.length === 0) throw new Error('no live consumer');
    return live.reduce((a, b) => (b.stats.applied > a.stats.applied ? b : a));
  }
  const w = all.find((c) => c.id === name);
  if (!w) throw new Error(`no consumer named "${String(name)}" (have ${all.map((c) => c.id).join(', ')})`);
  return w;
}

export function procState(pid: number | undefined): string {
  if (!pid) return 'none';
  try {
    // Field 3 of /proc/<pid>/stat: R running, S sleeping, T stopped, Z zombie.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.split(') ')[1]?.[0] ?? 'unknown';
  } catch {
    return 'gone';
  }
}

/** A worker's process state as procState reads it here; a worker on an agent's host cannot be read from here. */
export function workerState(w: { pid: number | undefined; where?: string }): string {
  return w.where ? `unknown: on agent ${w.where}` : procState(w.pid);
}

// ---------------------------------------------------------------------------------------------
// Checks before anything starts (`convoy validate`, `convoy run`): a fault kind refuses a spec
// that names something the scenario does not have, or that the broker cannot do.

/** What a fault can know about its run before anything starts. */
export interface FaultScope {
  /** Where messages point: `faults[2]`. */
  path: string;
  runtime: RuntimeKind;
  broker: string;
  /** The broker's capabilities with these settings on this runtime; undefined when it declares none. */
  capabilities?: BrokerCapabilities;
  /** Consumer process names: c1..cN. */
  consumers: string[];
  /** Logical producer names. */
  producers: string[];
  /** Each logical producer's process count. */
  producerProcesses: Record<string, number>;
  /** Order-service runs with an outbox: its relays, relay-1..relay-L (absent or empty otherwise). */
  relays?: string[];
}

/** What a fault's warnings can know besides its scope: the run's time, what it expects. */
export interface FaultWarnScope extends FaultScope {
  /**
   * When the run's traffic is over at the latest, counted as `atMs` is (from the start of the
   * measured phase): the sending, then the drain's bound. Undefined when only the client's speed bounds it.
   */
  runEndMs?: number;
  /** The scenario expects messages left unread (an `unseen` expectation other than 0). */
  expectsUnseen: boolean;
}

// Merged into the FaultKind interface above (kept in its own block).
export interface FaultKind {
  /** Problems with this spec, one line each starting with a path (`faults[2].consumer: ...`). */
  check?(spec: FaultSpec, scope: FaultScope): string[];
  /** Likely mistakes that do not stop the run (`convoy validate` and `convoy run` warn), one line each with the fix. */
  warn?(spec: FaultSpec, scope: FaultWarnScope): string[];
}

/** `<path>: no consumer "c7"; expected busiest or one of c1, c2 (consumers.processes is 2)`. */
export function checkConsumerName(path: string, name: unknown, scope: FaultScope, allowBusiest = true): string[] {
  if (allowBusiest && name === 'busiest') return [];
  if (typeof name === 'string' && scope.consumers.includes(name)) return [];
  const names = [...(allowBusiest ? ['busiest'] : []), ...scope.consumers];
  return [`${path}: no consumer ${JSON.stringify(name)} in this scenario; expected one of ${names.join(', ')} (consumers.processes is ${scope.consumers.length})`];
}

/** `<path>: <broker> cannot <what> ...` when a capability is missing; nothing when undeclared. */
export function checkCapability(path: string, scope: FaultScope, what: string, pick: (c: BrokerCapabilities) => Capability): string[] {
  if (!scope.capabilities) return [];
  const c = pick(scope.capabilities);
  return c === true ? [] : [`${path}: ${scope.broker} cannot ${what} on the ${scope.runtime} runtime: ${c}`];
}

// ---------------------------------------------------------------------------------------------
// The worker side of a fault. A fault that acts inside producer or consumer processes (a stall,
// failing handlers, a crash after an apply, a metadata refresh) declares it in its own file as
// `worker`; the runner side tells the chosen workers with startInWorker / endInWorker, and each
// worker process loads the hooks of every fault kind (harness/faults/worker-hooks.ts), so adding
// one touches no worker file.

/** What a consumer process lets a fault change in its handling, per handling attempt. */
export interface HandlerEffect {
  /** After the handler's own time: a promise holds the handler until it resolves (a stall). */
  hold?(): Promise<void> | undefined;
  /** The attempt fails (outcome error) and the delivery is settled so (a downstream outage). */
  failWith?(): Settlement | undefined;
  /** Right after an apply was recorded, before its settlement. */
  afterApply?(): void;
  /** The fault's window ended, or the worker stops: undo. */
  end?(): void;
}

/** A consumer process, as its faults see it. */
export interface ConsumerSide {
  id: string;
  log(line: string): void;
  /**
   * Commits the open store group and writes what the history holds so far to its file (before
   * a crash or a freeze). Afterwards this process holds no lock on the run's shared store.
   */
  flushHistory(): void;
  /**
   * A consumer under test (consumers.service): kill -9 the service's process, read what it
   * reported up to its death into the history, then end this process the same way. Absent in
   * convoy's own consumers, which are killed whole.
   */
  crash?(): void;
}

/** A producer process, as its faults see it. */
export interface ProducerSide {
  id: string;
  log(line: string): void;
  client: ProducerClient;
  /** Records a `mark` event in the producer's history. */
  mark(name: string, detail: Record<string, unknown>): void;
  /** Which process of which logical producer this is (0-based index). */
  producer: { name: string; index: number };
  /** Sets how far the payload clock (the service's wall clock stamped into each message) is off; 0 restores it. The run clock is untouched. */
  setClockOffset(ms: number): void;
}

/** A fault's hooks inside worker processes; `args` is what startInWorker sent. */
export interface WorkerHooks {
  consumer?(args: Record<string, unknown>, side: ConsumerSide): HandlerEffect;
  producer?(args: Record<string, unknown>, side: ProducerSide): { end?(): void } | void;
  /** An outbox relay of the order service (harness/gateway/relay.ts). */
  relay?(args: Record<string, unknown>, side: RelaySide): RelayEffect;
}

/** What an outbox relay lets a fault see and do. */
export interface RelaySide {
  id: string;
  log(line: string): void;
  /** Writes the buffered history to its file now (before a self-inflicted kill). */
  flushHistory(): void;
}

/** A fault's effect on a relay: after a batch is published and acked, before it is marked sent. */
export interface RelayEffect {
  afterPublish?(): void;
  end?(): void;
}

// Merged into the FaultKind interface above.
export interface FaultKind {
  /** What the fault does inside producer or consumer processes, if anything. */
  worker?: WorkerHooks;
}

/** Starts fault `kind`'s worker hook in one worker process. */
export function startInWorker(w: WorkerHandle, kind: string, args: Record<string, unknown> = {}): void {
  w.send({ type: 'fault', kind, phase: 'start', args });
}

/** Ends it (nothing happens in a worker where it is not active). */
export function endInWorker(w: WorkerHandle, kind: string): void {
  w.send({ type: 'fault', kind, phase: 'end' });
}

/**
 * kill -9 a worker process: at once, or (`byItself`) by the process itself at fault `kind`'s
 * worker hook (selfKill), with a kill from outside if that does not come within 10 s. Marks it
 * killed by a fault and waits for its exit; returns the evidence of the kill.
 */
export async function killWorker(w: WorkerHandle, kind: string, byItself: boolean, args: Record<string, unknown> = {}): Promise<{ pid: number | undefined; state: string }> {
  const pid = w.pid;
  w.killedByFault = true;
  if (byItself) {
    startInWorker(w, kind, args);
    if (!(await w.waitExit(10_000))) w.signal('SIGKILL');
  } else {
    w.signal('SIGKILL');
  }
  await w.waitExit(5_000);
  return { pid, state: w.where ? (w.exited ? 'gone' : `unknown: on agent ${w.where}`) : procState(pid) };
}

/**
 * The end of a fault that took consumer `id` away: a fresh process with the same name, unless
 * the spec says `restart: false`. Safe to call twice; resolves with the evidence of the restart.
 */
export function restartAtEnd(ctx: FaultContext, spec: FaultSpec, id: string): () => Promise<unknown> {
  let ended = false;
  return async () => {
    if (ended || spec.restart === false) return undefined;
    ended = true;
    await ctx.restartConsumer(id);
    return { restarted: true, pid: consumerNamed(ctx, id).pid };
  };
}

/**
 * A worker hook that kills its own process with -9, its history written to its file first (a
 * consumer under test: its service first, and what it reported read, ConsumerSide.crash).
 */
export function selfKill(side: { flushHistory(): void; crash?(): void }): () => void {
  return () => {
    if (side.crash) return side.crash();
    side.flushHistory();
    signalOwnGroup('SIGKILL'); // and its client process, if it has one
  };
}
