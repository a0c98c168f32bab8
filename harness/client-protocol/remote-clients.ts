/**
 * A broker's producer and consumer as a client process (connection.ts), behind the broker
 * contract: the worker keeps its role (schedule, history, delivery gate, strategies) and talks
 * to the process instead of a library. A connection that fails after the handshake fails the
 * worker: its role cannot go on, and the runner records why (the run is then unknown).
 */
import type { BrokerSettings, ConsumerClient, ConsumerOptions, Delivery, Endpoint, ProducerClient, ProducerOptions, RunNames, SendAck, Settlement, OnDelivery } from '../broker/contract.ts';
import { SendFailure } from '../broker/contract.ts';
import { InputError } from '../errors.ts';
import { DeliveryGate, type Incoming } from '../delivery/gate.ts';
import { moduleProcessArgs } from '../module-ext.ts';
import { ClientConnection } from './connection.ts';

/** The reference client: a broker module's own Node client in a child process (node-client.ts). */
export function referenceClientCommand(): string[] {
  return [process.execPath, ...moduleProcessArgs('harness/client-protocol/node-client')];
}

/** Ends the worker with the connection's error: its role cannot go on without its client. */
function failWorker(error: Error): void {
  setImmediate(() => {
    throw error;
  });
}

interface Pending<T> {
  resolve(v: T): void;
  reject(e: Error): void;
}

export async function remoteProducer(command: string[], endpoint: Endpoint, settings: BrokerSettings, names: RunNames, options: ProducerOptions): Promise<ProducerClient> {
  const maxInFlight = options.maxInFlight ?? 10_000;
  const conn = await ClientConnection.open({
    command,
    configure: { role: 'producer', id: options.id, endpoint: endpoint as Record<string, unknown>, settings: settings as Record<string, unknown>, names: { ...names }, maxInFlight },
    log: options.log,
    onFailure: failWorker,
  });
  const pending = new Map<number, Pending<SendAck>>();
  conn.on('ack', (m) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    p?.resolve({ ...(m.lane !== undefined ? { lane: m.lane } : {}), ...(m.offset !== undefined ? { offset: m.offset } : {}) });
  });
  conn.on('failure', (m) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    p?.reject(new SendFailure(m.message, m.definite));
  });
  void conn.failed().catch((e: Error) => {
    for (const p of pending.values()) p.reject(new SendFailure(`client process: ${e.message}`, false));
    pending.clear();
  });
  const caps = conn.hello!.capabilities;
  let nextId = 1;
  return {
    send(message) {
      // A consumer under test reads convoy's fields in headers: a client that cannot put them is bad input, not a silent run without them.
      if (message.headers && !caps.includes('headers')) throw new InputError(`consumers.service: the client process ${command.join(' ')} cannot put convoy's fields in headers (no capability "headers" in its hello)`);
      const id = nextId++;
      return new Promise<SendAck>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        conn.write({ type: 'send', id, key: message.key, payload: message.payload.toString('base64'), ...(message.headers ? { headers: message.headers } : {}) });
      });
    },
    ...(caps.includes('refresh-metadata') ? { refreshMetadata: async () => void (await conn.request('refresh-metadata')) } : {}),
    // Asked afresh each time (an answer cached from the call before lagged one call behind:
    // a fault's count over its window came out as the count at its start).
    ...(caps.includes('errors-seen') ? { errorsSeen: async () => ((await conn.request('errors-seen')) ?? {}) as Record<string, number> } : {}),
    close: () => conn.close(),
  };
}

export async function remoteConsumer(command: string[], endpoint: Endpoint, settings: BrokerSettings, names: RunNames, options: ConsumerOptions): Promise<ConsumerClient> {
  // Deliveries that come before start() wait for it.
  const early: Incoming[] = [];
  let gate: DeliveryGate | undefined;
  const settles = new Map<number, Pending<void>>();
  // Deliveries the client took back (a seek back, a revocation): never handed out, never settled.
  const withdrawn = new Set<number>();
  const withdraw = (ids: number[] | undefined) => ids?.forEach((i) => withdrawn.add(i));
  const conn = await ClientConnection.open({
    command,
    configure: { role: 'consumer', id: options.id, endpoint: endpoint as Record<string, unknown>, settings: settings as Record<string, unknown>, names: { ...names }, maxInFlight: options.maxInFlight },
    log: options.log,
    onFailure: failWorker,
  });
  conn.on('group', (m) => {
    withdraw(m.withdrawn);
    options.onGroupEvent?.({ phase: m.phase, lanes: m.lanes, ...(m.generation !== undefined ? { generation: m.generation } : {}) });
  });
  conn.on('before-commit', (m) => {
    try {
      options.beforeCommit?.();
    } catch (e) {
      // What was handled is not durable: the client must not commit it.
      options.log(`before a commit: ${(e as Error).message}; no commit-ok`);
      return;
    }
    conn.write({ type: 'commit-ok', id: m.id });
  });
  conn.on('settled', (m) => {
    withdraw(m.withdrawn);
    const s = settles.get(m.id);
    settles.delete(m.id);
    if (m.error !== undefined) s?.reject(new Error(m.error));
    else s?.resolve();
  });
  conn.on('delivery', (m) => {
    const d: Incoming = {
      payload: Buffer.from(m.payload, 'base64'),
      ...(m.lane !== undefined ? { lane: m.lane } : {}),
      ...(m.offset !== undefined ? { offset: m.offset } : {}),
      ...(m.deliveryCount !== undefined ? { deliveryCount: m.deliveryCount } : {}),
      claim: () => !withdrawn.delete(m.id),
      settle: (how: Settlement) =>
        withdrawn.delete(m.id) ? Promise.resolve() : new Promise<void>((resolve, reject) => {
          settles.set(m.id, { resolve, reject });
          conn.write({ type: 'settle', id: m.id, how });
        }),
    };
    if (gate) void gate.accept(d);
    else early.push(d);
  });
  return {
    commitsLater: conn.hello!.capabilities.includes('commits-later'),
    async start(onDelivery: OnDelivery) {
      gate = new DeliveryGate(onDelivery, { id: options.id, maxInFlight: options.maxInFlight, log: options.log, onHandlerError: 'requeue', onRenewal: options.onRenewal });
      for (const d of early.splice(0)) void gate.accept(d);
    },
    // The client said ready once it had joined: the handshake waited for it.
    async ready() {},
    async close() {
      gate?.close();
      await conn.close();
    },
  };
}
