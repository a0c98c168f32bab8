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
