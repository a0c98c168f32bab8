/**
 * What every bare client of bench/bare/ shares: its arguments, the messages it sends (the same
 * keys and size as convoy's bench producers) and the one JSON line it prints.
 *
 * A bare client is the library alone, doing nothing per message but count it: its rate and CPU
 * are what the library allows a Node process here, so convoy's row divided by it is what the
 * harness itself costs. Each runs as a child process:
 *   node --import tsx bench/bare/<client>-<role>.ts <bootstrap> <topic> <group> <messages> <size> <keys> <maxInFlight>
 * and prints { messages, firstMs, lastMs, cpuMs } (the busy window: first send or delivery to the
 * last ack or delivery; cpuMs is the whole process's CPU, every thread, over that window).
 */
export interface BareArgs {
  bootstrap: string;
  topic: string;
  group: string;
  messages: number;
  size: number;
  keys: number;
  maxInFlight: number;
}

export function bareArgs(): BareArgs {
  const [bootstrap = '', topic = '', group = '', messages = '0', size = '256', keys = '10000', maxInFlight = '10000'] = process.argv.slice(2);
  return { bootstrap, topic, group, messages: Number(messages), size: Number(size), keys: Number(keys), maxInFlight: Number(maxInFlight) };
}

/** The keys, k0 .. k<keys-1>, made once (nothing per message). */
export function keyList(keys: number): string[] {
  return Array.from({ length: keys }, (_, i) => `k${i}`);
}

/** Measures the busy window: call first() at the first message, then finish() after the last. */
export function busyWindow() {
  let firstMs = 0;
  let cpu0 = process.cpuUsage();
  return {
    first(): void {
      if (firstMs) return;
      firstMs = performance.now();
      cpu0 = process.cpuUsage();
    },
    finish(messages: number): void {
      const cpu = process.cpuUsage(cpu0);
      process.stdout.write(`${JSON.stringify({ messages, firstMs, lastMs: performance.now(), cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
    },
  };
}

/** How many messages one send() call of the chunked bare producers carries. */
export const CHUNK = 256;

/**
 * The chunked bare producers' loop (kafkajs, @platformatic/kafka): one chunk of keyed messages
 * per event-loop turn, as convoy's producer loop, at most maxInFlight messages awaiting their
 * acks; prints the busy window when the last is acked. `send(keys)` sends one chunk.
 */
export async function produceInChunks<K>(a: BareArgs, keys: K[], send: (chunk: K[]) => Promise<unknown>): Promise<void> {
  let acked = 0;
  let failed = 0;
  let wake: (() => void) | undefined;
  const window = busyWindow();
  window.first();
  for (let i = 0; i < a.messages; i += CHUNK) {
    while (i - acked >= a.maxInFlight) await new Promise<void>((r) => (wake = r));
    const n = Math.min(CHUNK, a.messages - i);
    send(Array.from({ length: n }, (_, j) => keys[(i + j) % a.keys]!)).then(
      () => {
        acked += n;
        wake?.();
      },
      () => {
        failed += n;
        acked += n;
        wake?.();
      },
    );
    await new Promise<void>((r) => setImmediate(r));
  }
  while (acked < a.messages) await new Promise<void>((r) => (wake = r));
  window.finish(a.messages - failed);
}
