/** Milliseconds from a number (already ms) or a string "250ms", "30s", "2m", "1h", "500us". */
export function parseDuration(v: number | string): number {
  if (typeof v === 'number') return v;
  const m = /^([0-9]+(?:\.[0-9]+)?)(us|ms|s|m|h)$/.exec(v.trim());
  if (!m) throw new RangeError(`not a duration: ${JSON.stringify(v)}`);
  const n = Number(m[1]);
  const factor = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'us' | 'ms' | 's' | 'm' | 'h'];
  return n * factor;
}

/**
 * Broker settings take durations as every time in a scenario does: a field named `...Ms` may
 * be "8s", "500ms" or a number of milliseconds. Turned into milliseconds before the broker's
 * own schema sees them (fields of other names, such as Kafka's server properties, are left
 * as written).
 */
export function durationsInMs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(durationsInMs);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (takesDuration(k) && typeof v === 'string') {
      try {
        out[k] = parseDuration(v);
      } catch {
        out[k] = v; // the broker's schema says what is wrong with it
      }
    } else out[k] = KEPT_AS_WRITTEN.has(k) ? v : durationsInMs(v);
  }
  return out;
}

/** Broker settings whose fields are the server's own (Kafka's server.properties): no durations inside. */
export const KEPT_AS_WRITTEN: ReadonlySet<string> = new Set(['brokerConfig']);

/** A broker setting that takes a duration: its name ends in `Ms` (the published scenario schema says so too). */
export function takesDuration(key: string): boolean {
  return key.endsWith('Ms');
}

/** Milliseconds as seconds for a message: `2 s`, `1.25 s`, `12.5 s`. */
export function secs(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(s < 10 ? 2 : 1).replace(/\.?0+$/, '')} s`;
}
