/**
 * Creates and deletes the run's exchanges and queues (see names.ts for the layout), and the
 * optional capabilities faults look for: redriveDeadLetters, lanes, describeConsumerGroup,
 * describeReplication.
 */
import type * as amqp from 'amqplib';
import type { BrokerAdmin, RemainingReport, RunNames } from '../../harness/broker/contract.ts';
import { InfraError, InputError } from '../../harness/errors.ts';
import { closeConnection, openConnection, type RabbitEndpoint } from './connection.ts';
import { destinations, REDRIVE_HEADER, type Destinations } from './names.ts';
import { runCli } from './ctl.ts';
import { readHashRing } from './hash-ring.ts';
import { quorumLanes, readQuorumStatus } from './quorum-status.ts';
import type { RabbitSettings } from './settings.ts';

/** Queue arguments for a main queue (or lane) of this run. */
export function mainQueueArgs(settings: RabbitSettings, d: Destinations): Record<string, unknown> {
  const args: Record<string, unknown> = { 'x-queue-type': settings.queueType };
  if (settings.topology !== 'competing') args['x-single-active-consumer'] = true;
  const dlx = d.retryExchange ?? d.deadLetterExchange;
  if (dlx) args['x-dead-letter-exchange'] = dlx;
  // Quorum queues count returns (requeues, lost consumers) and dead-letter past the limit.
  if (settings.queueType === 'quorum' && settings.deadLetter.maxDeliveries !== undefined) {
    args['x-delivery-limit'] = settings.deadLetter.maxDeliveries;
  }
  return args;
}

/**
 * Flushes the node's metadata to disk through `rabbitmqctl eval`: Mnesia's transaction log
 * (queue and binding records) and every dets table (Ra's registry of quorum queue members).
 * See settings.syncMetadata for why.
 */
export async function syncNodeMetadata(endpoint: RabbitEndpoint): Promise<void> {
  if (!endpoint.node || !endpoint.rabbitmqctl) throw new Error('no local node to reach with rabbitmqctl');
  const expr = '{mnesia:sync_log(), [dets:sync(T) || T <- dets:all()]}.';
  // Every node of a cluster: each keeps its own copy.
  for (const node of endpoint.nodes ?? [endpoint.node]) {
    const stdout = await runCli(endpoint, 'rabbitmqctl', node, ['eval', expr], 30_000);
    if (!/^\{ok,\s*\[(ok,?\s*)*\]\}$/.test(stdout.trim())) throw new Error(`rabbitmqctl eval on ${node} said: ${stdout.trim().slice(0, 200)}`);
  }
}

/**
 * A queue made beforehand (queue.name): a passive check only. It must exist, and nobody may be
 * consuming it: one run at a time per queue. RabbitMQ's consumers compete, so two runs on one
 * queue would take each other's messages (a single-active queue hands them all to one run's
 * consumer), and requeueing another run's message would send a finished run's leftovers round
 * forever; so another run's message is acked unseen (a leftover of a run that is over), and a
 * queue someone consumes already is refused: when the command starts (checkExternal) and again
 * when the run begins. Two runs started at the same instant can still both pass the check.
 */
export async function checkPrecreatedQueue(ch: amqp.Channel, queue: string): Promise<void> {
  const r = await ch.checkQueue(queue).catch((err: { code?: number }) => {
    if (err?.code === 404) throw new InputError(`external RabbitMQ: queue.name ${queue}: no such queue in this vhost (make it beforehand, or leave queue.name out)`);
    if (err?.code === 403) throw new InputError(`external RabbitMQ: queue.name ${queue}: this user may not use it (ACCESS_REFUSED); grant read and write on it (docs/external.md)`);
    throw err;
  });
  if (r.consumerCount > 0) throw new InputError(`external RabbitMQ: queue.name ${queue} has ${r.consumerCount} consumer(s) already (another run, or another application): one run at a time per queue made beforehand`);
}

export class RabbitAdmin implements BrokerAdmin {
  readonly dest: Destinations;
  private conn?: amqp.ChannelModel;
  /** Evidence for describeConsumerGroup: whether the metadata was flushed (see settings). */
  metadataSync: string = 'not available (no local node)';

  constructor(
    private readonly endpoint: RabbitEndpoint,
    private readonly settings: RabbitSettings,
    private readonly names: RunNames,
  ) {
    this.dest = destinations(settings, names, endpoint.queue);
  }

  private async connection(): Promise<amqp.ChannelModel> {
    if (!this.conn) {
      const conn = await openConnection(this.endpoint, { name: `convoy-admin-${this.names.runId}`, heartbeatSeconds: 30, admin: true });
      conn.on('close', () => {
        if (this.conn === conn) this.conn = undefined;
      });
      this.conn = conn;
    }
    return this.conn;
  }

  /**
   * A fresh channel per operation: a channel error (404, 406) closes only that channel. Bounded
   * in time: a quorum queue without a leader never answers, and teardown must not hang on it.
   */
  private async withChannel<T>(fn: (ch: amqp.Channel) => Promise<T>, timeoutMs = 20_000): Promise<T> {
    const ch = await (await this.connection()).createChannel();
    ch.on('error', () => {});
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        fn(ch),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer from the broker within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      await Promise.race([ch.close().catch(() => {}), new Promise((r) => setTimeout(r, 2_000))]);
    }
  }

  async createDestinations(): Promise<void> {
    if (this.endpoint.queue) return this.withChannel((ch) => checkPrecreatedQueue(ch, this.endpoint.queue!));
    const { settings: s, dest: d } = this;
    const durable = s.durable;
    await this.withChannel(async (ch) => {
      if (d.deadLetterExchange && d.deadLetterQueue) {
        await ch.assertExchange(d.deadLetterExchange, 'fanout', { durable });
        await ch.assertQueue(d.deadLetterQueue, { durable, arguments: { 'x-queue-type': s.queueType } });
        await ch.bindQueue(d.deadLetterQueue, d.deadLetterExchange, '');
      }
      if (d.retryExchange && d.retryQueue && s.deadLetter.retryQueue) {
        await ch.assertExchange(d.retryExchange, 'fanout', { durable });
        // No x-dead-letter-routing-key: expired messages keep their original routing key,
        // so they go back to the same main queue, or to the same lane of the hash exchange.
        await ch.assertQueue(d.retryQueue, {
          durable,
          arguments: {
            'x-queue-type': s.queueType,
            'x-message-ttl': s.deadLetter.retryQueue.ttlMs,
            'x-dead-letter-exchange': d.publishExchange,
          },
        });
        await ch.bindQueue(d.retryQueue, d.retryExchange, '');
      }
      if (d.hashExchange) await ch.assertExchange(d.hashExchange, 'x-consistent-hash', { durable });
      for (const q of d.queues) {
        await ch.assertQueue(q, { durable, arguments: mainQueueArgs(s, d) });
        // Binding key of a consistent hash exchange is the queue's weight on the ring.
        if (d.hashExchange) await ch.bindQueue(q, d.hashExchange, '1');
      }
    }).catch((err: { code?: number; message?: string }) => {
      if (err?.code !== 403) throw err;
      throw new InfraError(`declaring ${d.queues[0]} and the run's other queues: not authorized (ACCESS_REFUSED): this user may not declare queues or exchanges (no configure permission); give a queue made beforehand with queue.name (docs/external.md)`, [], { cause: err });
    });
    if (this.endpoint.node) {
      if (!s.syncMetadata) this.metadataSync = 'off';
      else {
        try {
          await syncNodeMetadata(this.endpoint);
          this.metadataSync = 'done';
        } catch (err) {
          this.metadataSync = `failed: ${(err as Error).message}`;
        }
      }
    }
  }

  async deleteDestinations(): Promise<void> {
    if (this.endpoint.queue) return; // made beforehand: not the run's to delete
    const d = this.dest;
    const queues = [...d.queues, d.retryQueue, d.deadLetterQueue].filter((q): q is string => !!q);
    const exchanges = [d.hashExchange, d.retryExchange, d.deadLetterExchange].filter((x): x is string => !!x);
    for (const q of queues) await this.withChannel((ch) => ch.deleteQueue(q)).catch(() => undefined);
    for (const x of exchanges) await this.withChannel((ch) => ch.deleteExchange(x)).catch(() => undefined);
  }

  async lanes(): Promise<string[]> {
    return [...this.dest.queues];
  }

  /** Messages and consumers per queue, as the broker counts them (queue.declare passive). */
  async describeConsumerGroup(): Promise<Record<string, unknown>> {
    const d = this.dest;
    const queues: Record<string, unknown>[] = [];
    for (const q of [...d.queues, d.retryQueue, d.deadLetterQueue].filter((x): x is string => !!x)) {
      try {
        const r = await this.withChannel((ch) => ch.checkQueue(q));
        queues.push({ queue: q, messages: r.messageCount, consumers: r.consumerCount });
      } catch (err) {
        queues.push({ queue: q, error: (err as Error).message });
      }
    }
    return { topology: this.settings.topology, queueType: this.settings.queueType, metadataSync: this.metadataSync, queues };
  }

  /**
   * Broker-side evidence a node fault records before, during and after it: for hash lanes, the
   * consistent hash exchange's ring (which queue owns each bucket), which a node restart can
   * rebuild differently (hash-ring.ts); for quorum queues, the members and the leader
   * (quorum-status.ts).
   */
  async describeReplication(): Promise<Record<string, unknown>> {
    const d = this.dest;
    const quorum = this.settings.queueType === 'quorum' && this.endpoint.node ? await readQuorumStatus(this.endpoint, [...d.queues]) : undefined;
    return {
      topology: this.settings.topology,
      ...(d.hashExchange ? { hashRing: await readHashRing(this.endpoint, d.hashExchange) } : {}),
      // `lanes` as Kafka gives them (leader, replicas, in-sync members): the isolate fault
      // follows them through its window and ends it when every member is back.
      ...(quorum ? { quorum, lanes: quorumLanes(quorum, this.endpoint.nodes ?? [this.endpoint.node!]) } : {}),
    };
  }

  /**
   * Messages the run's queues still hold (queue.declare passive: ready ones; once the
   * consumers' channels closed, their unacked deliveries are ready again). Lanes are the main
   * queues; the retry queue (messages waiting to come back) and the dead-letter queue count in
   * the total too: a message there is held, not lost.
   */
  async remaining(): Promise<RemainingReport> {
    const d = this.dest;
    const lanes: Record<string, number> = {};
    const held: Record<string, { messages: number; consumers: number; gone?: boolean }> = {};
    let total = 0;
    for (const q of [...d.queues, d.retryQueue, d.deadLetterQueue].filter((x): x is string => !!x)) {
      // A queue the broker no longer has (a transient queue over a restart) holds nothing:
      // its messages went with it.
      const r = await this.withChannel((ch) => ch.checkQueue(q)).catch((err: { code?: number }) => {
        if (err?.code === 404) return { messageCount: 0, consumerCount: 0, gone: true };
        throw err;
      });
      held[q] = { messages: r.messageCount, consumers: r.consumerCount, ...('gone' in r ? { gone: true } : {}) };
      if (d.queues.includes(q)) lanes[q] = r.messageCount;
      total += r.messageCount;
    }
    const parked = d.deadLetterQueue ? (held[d.deadLetterQueue]?.messages ?? 0) : 0;
    return { known: true, total, deliverable: total - parked, lanes, detail: { queues: held } };
  }

  /**
   * Moves every message from the dead-letter queue back into the publish exchange with its
   * original routing key (so the same queue or hash lane), oldest first, acking each only
   * after the broker confirmed its copy: a crash mid-way duplicates, never loses. The copy
   * keeps its headers (x-death included) and gets `convoy-redriven` incremented. Resolves
   * with how many moved. The redriven message is an old change
   * that now lands on top of newer ones.
   */
  async redriveDeadLetters(): Promise<number> {
    const { deadLetterQueue: dlq } = this.dest;
    if (!dlq) throw new Error('redrive: this run has no dead-letter queue (set broker.deadLetter.enabled)');
    const conn = await this.connection();
    const ch = await conn.createConfirmChannel();
    ch.on('error', () => {});
    let moved = 0;
    try {
      for (;;) {
        const batch: amqp.GetMessage[] = [];
        while (batch.length < 200) {
          const m = await ch.get(dlq, { noAck: false });
          if (!m) break;
          batch.push(m);
        }
        if (batch.length === 0) break;
        for (const m of batch) {
          const headers = { ...(m.properties.headers ?? {}) };
          headers[REDRIVE_HEADER] = Number(headers[REDRIVE_HEADER] ?? 0) + 1;
          ch.publish(this.dest.publishExchange, m.fields.routingKey, m.content, {
            headers,
            persistent: m.properties.deliveryMode === 2,
            messageId: m.properties.messageId,
            contentType: m.properties.contentType,
            mandatory: false,
          });
        }
        await ch.waitForConfirms();
        ch.ack(batch[batch.length - 1]!, true);
        moved += batch.length;
      }
    } finally {
      await ch.close().catch(() => {});
    }
    return moved;
  }

  async close(): Promise<void> {
    const c = this.conn;
    this.conn = undefined;
    await closeConnection(c);
  }
}
