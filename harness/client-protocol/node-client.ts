/**
 * The reference client: a broker module's own Node client (kafkajs, librdkafka, ...) in a
 * process of its own, speaking the client protocol (docs/client-protocol.md) on the socket
 * named by CONVOY_CLIENT_SOCKET. What it writes goes to the socket only; its logs go there as
 * `log` lines. It settles each delivery when the worker says so and lets the worker write its
 * records first (it does not declare commits-later), so its broker client may commit whenever.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { CHECKOUT } from '../module-ext.ts';
import type { ConsumerClient, Delivery, ProducerClient } from '../broker/contract.ts';
import { SendFailure } from '../broker/contract.ts';
import { loadBroker } from '../broker/registry.ts';
import { LineChannel } from '../line-protocol/channel.ts';
import { CLIENT_PROTOCOL_VERSION, TO_CLIENT, type ConfigureMessage, type FromClient, type ToClient } from './messages.ts';

const path = process.env.CONVOY_CLIENT_SOCKET;
if (!path) {
  process.stderr.write('convoy node client: CONVOY_CLIENT_SOCKET is not set (the worker that starts it sets it)\n');
  process.exit(2);
}
const socket = connect(path);
socket.setNoDelay(true);
const clock = () => performance.now() * 1000;
const toClient = new Set<string>(TO_CLIENT.map((m) => m.properties.type.const));
const channel = new LineChannel<ToClient, FromClient>(socket, {
  // The worker is convoy itself: a line of a known type is taken as it is.
  check: (m) => (typeof m.type === 'string' && toClient.has(m.type) ? undefined : `unknown message type ${JSON.stringify(m.type)}`),
  onMessage: (m) => handle(m),
  onMalformed: (problem, line) => fatal(`the worker wrote a malformed line (${problem}): ${line}`),
  // The worker is gone: never linger.
  onClose: (e) => process.exit(e ? 1 : 0),
});
const write = (m: FromClient) => void channel.write(m);
const log = (line: string) => write({ type: 'log', line });

let producer: ProducerClient | undefined;
let consumer: ConsumerClient | undefined;
const held = new Map<number, Delivery>();
let nextDelivery = 1;

async function configure(m: ConfigureMessage): Promise<void> {
  const broker = await loadBroker(String(m.settings.kind));
  // This process is the client: its own settings run it inside, not in yet another process.
  const { clientProcess: _self, ...settings } = m.settings as Record<string, unknown> & { kind: string };
  if (m.role === 'producer') {
    producer = await broker.producer(m.endpoint, settings, m.names, { id: m.id, log, maxInFlight: m.maxInFlight });
  } else {
    consumer = await broker.consumer(m.endpoint, settings, m.names, {
      id: m.id,
      maxInFlight: m.maxInFlight,
      log,
      onGroupEvent: (e) => write({ type: 'group', phase: e.phase, lanes: e.lanes, ...(e.generation !== undefined ? { generation: e.generation } : {}) }),
    });
    await consumer.start(async (d) => {
      const id = nextDelivery++;
      held.set(id, d);
      write({
        type: 'delivery', id, payload: d.payload.toString('base64'), at: clock(),
        ...(d.lane !== undefined ? { lane: d.lane } : {}), ...(d.offset !== undefined ? { offset: d.offset } : {}), ...(d.deliveryCount !== undefined ? { deliveryCount: d.deliveryCount } : {}),
      });
    });
    await consumer.ready(60_000);
  }
  write({ type: 'ready' });
}

function handle(m: ToClient): void {
  switch (m.type) {
    case 'configure':
      configure(m).catch((e: Error) => fatal(`configure: ${e.message}`));
      return;
    case 'send':
      producer!.send({ key: m.key, payload: Buffer.from(m.payload, 'base64'), ...(m.headers ? { headers: m.headers } : {}) }).then(
        (ack) => write({ type: 'ack', id: m.id, at: clock(), ...(ack.lane !== undefined ? { lane: ack.lane } : {}), ...(ack.offset !== undefined ? { offset: ack.offset } : {}) }),
        (e: Error) => write({ type: 'failure', id: m.id, message: e.message, definite: e instanceof SendFailure && e.definite, at: clock() }),
      );
      return;
    case 'settle': {
      const d = held.get(m.id);
      held.delete(m.id);
      if (!d) return void write({ type: 'settled', id: m.id, error: `no delivery ${m.id} held` });
      d.settle(m.how).then(
        () => write({ type: 'settled', id: m.id }),
        (e: Error) => write({ type: 'settled', id: m.id, error: e.message }),
      );
      return;
    }
    case 'ping':
      write({ type: 'pong', id: m.id, clockUs: clock() });
      return;
    case 'request': {
      const answer = async (): Promise<unknown> => {
        if (m.what === 'refresh-metadata') {
          if (!producer?.refreshMetadata) throw new Error('this client cannot refresh metadata');
          return void (await producer.refreshMetadata());
        }
        if (m.what === 'errors-seen') return producer?.errorsSeen?.() ?? {};
        throw new Error(`this client cannot ${m.what}`);
      };
      answer().then(
        (result) => write({ type: 'reply', id: m.id, ...(result !== undefined ? { result } : {}) }),
        (e: Error) => write({ type: 'reply', id: m.id, error: e.message }),
      );
      return;
    }
    case 'close':
      void Promise.all([producer?.close(), consumer?.close()]).then(
        () => {
          write({ type: 'closed' });
          void channel.end().then(() => process.exit(0));
        },
        (e: Error) => fatal(`close: ${e.message}`),
      );
      return;
    case 'commit-ok':
      return;
  }
}

function fatal(message: string): void {
  write({ type: 'fatal', message, log: [] });
  void channel.end().then(() => process.exit(1));
}

const { version } = JSON.parse(readFileSync(join(CHECKOUT, 'package.json'), 'utf8')) as { version: string };
write({ type: 'hello', protocol: CLIENT_PROTOCOL_VERSION, client: { name: 'convoy-node', version }, capabilities: ['refresh-metadata', 'errors-seen', 'headers'], clockUs: clock() });
