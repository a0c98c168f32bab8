// Shared setup for the emulator tests: every test gets its own emulator on an ephemeral port and
// talks to it only through the real @azure/service-bus SDK.
import { ServiceBusClient, type ServiceBusClientOptions, type ServiceBusReceivedMessage } from "@azure/service-bus";
import { startEmulator, type Emulator, type EmulatorOptions, type QueuePropertiesInput } from "../emulator/index.ts";

export interface Harness {
  emulator: Emulator;
  client: ServiceBusClient;
  /** Another client on its own AMQP connection (a competing consumer process). */
  newClient(options?: ServiceBusClientOptions): ServiceBusClient;
  close(): Promise<void>;
}

/** Short SDK timeouts so a broken emulator fails a test in seconds, not minutes. */
export const FAST_RETRY: ServiceBusClientOptions = { retryOptions: { maxRetries: 1, timeoutInMs: 10_000, retryDelayInMs: 100 } };

export async function startHarness(queues: Record<string, QueuePropertiesInput>, options: EmulatorOptions = {}): Promise<Harness> {
  const emulator = await startEmulator({ ...options, port: 0 });
  for (const [name, props] of Object.entries(queues)) emulator.createQueue(name, props);
  const clients: ServiceBusClient[] = [];
  const newClient = (options: ServiceBusClientOptions = FAST_RETRY): ServiceBusClient => {
    const c = new ServiceBusClient(emulator.connectionString, options);
    clients.push(c);
    return c;
  };
  const client = newClient();
  return {
    emulator,
    client,
    newClient,
    close: async () => {
      await Promise.allSettled(clients.map((c) => c.close()));
      await emulator.close();
    },
  };
}

/** Runs `fn` with a fresh harness and always tears it down. */
export async function withHarness(
  queues: Record<string, QueuePropertiesInput>,
  fn: (h: Harness) => Promise<void>,
  options: EmulatorOptions = {},
): Promise<void> {
  const h = await startHarness(queues, options);
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const seq = (m: ServiceBusReceivedMessage): number => (m.sequenceNumber ? m.sequenceNumber.toNumber() : -1);

/** The rejection of `promise`, or a failure if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error("expected the operation to fail, but it succeeded");
}
