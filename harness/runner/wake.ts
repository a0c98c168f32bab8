import { sleep } from '../clock.ts';
import type { WorkerHandle } from '../workers/handle.ts';

/**
 * Sleeps up to `ms`, waking as soon as one of `workers` that had not finished its plan says it
 * has (a stats message with `finished`, or `stopped`). The run's produce loop polls every
 * 500 ms; without this, a run went on for up to 500 ms after its last producer was done
 * (a 1.5 s memory-broker plan took 2.0 s).
 */
export async function sleepUntilFinished(workers: readonly WorkerHandle[], ms: number, signal: AbortSignal): Promise<void> {
  const offs: (() => void)[] = [];
  // Its own abort, so that an early wake also clears the timer (a pending one kept a test's process alive).
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const finished = new Promise<void>((resolve) => {
    for (const w of workers) {
      if (w.stats.finished || w.exited) continue;
      offs.push(w.onMessage((m) => (m.type === 'stopped' || (m.type === 'stats' && m.stats.finished) ? resolve() : undefined)));
    }
  });
  try {
    await Promise.race([sleep(ms, stop.signal), finished]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    stop.abort();
    for (const off of offs) off();
  }
}
