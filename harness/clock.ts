/**
 * The run's clock: integer microseconds since the Unix epoch, monotonic within a process.
 * performance.timeOrigin is taken from the system clock when the process starts, so every
 * process of a run on one host reads the same scale; Date.now() is neither monotonic nor
 * fine enough.
 */
const origin = performance.timeOrigin;

export function nowMicros(): number {
  return Math.round((origin + performance.now()) * 1000);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', done);
      clearTimeout(t);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
