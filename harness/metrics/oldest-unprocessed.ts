import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * For a few keys (the busiest), the age of the oldest message written but not yet applied at
 * the end of every second: how far a hot key falls behind. A second pass over the history,
 * keeping only those keys' messages.
 */
export async function oldestUnprocessed(
  file: string,
  keys: string[],
  originUs: number,
  bucketUs: number,
  buckets: number,
): Promise<Record<string, number[]>> {
  return (await keyBacklog(file, keys, originUs, bucketUs, buckets)).oldestMs;
}

/**
 * Per key, at the end of every bucket: the age of its oldest message written (acked ok) and not
 * yet handled (ms), and how many such messages it had (its backlog). A message is handled at its
 * first process event with outcome ok (a conflated one too: it was settled).
 */
export async function keyBacklog(
  file: string,
  keys: string[],
  originUs: number,
  bucketUs: number,
  buckets: number,
): Promise<{ oldestMs: Record<string, number[]>; backlog: Record<string, number[]>; written: Record<string, number> }> {
  const wanted = new Set(keys);
  // Per message of a wanted key: when it was sent (acked ok) and when it was first applied.
  const sent = new Map<string, { key: string; at: number }>();
  const ok = new Set<string>();
  const applied = new Map<string, number>();
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    // Cheap filter before parsing: most lines are other keys.
    if (!keys.some((k) => line.includes(`"key":"${k}"`))) continue;
    let e: { type: string; key: string | null; producer: string | null; seq: number | null; at?: number; ok?: boolean | null; end?: number; outcome?: string };
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (e.key === null || !wanted.has(e.key)) continue;
    const id = `${e.producer}\u0000${e.key}\u0000${e.seq}`;
    if (e.type === 'send' && e.at !== undefined) {
      const prev = sent.get(id);
      if (!prev || e.at < prev.at) sent.set(id, { key: e.key, at: e.at });
    } else if (e.type === 'ack' && e.ok === true) ok.add(id);
    else if (e.type === 'process' && e.outcome === 'ok' && e.end !== undefined) {
      const prev = applied.get(id);
      if (prev === undefined || e.end < prev) applied.set(id, e.end);
    }
  }
  const out: Record<string, number[]> = {};
  const backlog: Record<string, number[]> = {};
  for (const key of keys) out[key] = new Array<number>(buckets).fill(0);
  for (const key of keys) backlog[key] = new Array<number>(buckets).fill(0);
  /** Acked messages per key sent from the origin on. */
  const written: Record<string, number> = Object.fromEntries(keys.map((k) => [k, 0]));
  for (const [id, s] of sent) {
    if (!ok.has(id)) continue;
    if (s.at >= originUs) written[s.key]++;
    const done = applied.get(id) ?? Infinity;
    const series = out[s.key];
    const count = backlog[s.key];
    // The message is pending at the end of every bucket between its send and its apply.
    const first = Math.max(0, Math.ceil((s.at - originUs) / bucketUs) - 1);
    for (let b = first; b < buckets; b++) {
      const t = originUs + (b + 1) * bucketUs;
      if (t < s.at) continue;
      if (t >= done) break;
      series[b] = Math.max(series[b], Math.round((t - s.at) / 1000));
      count[b]++;
    }
  }
  return { oldestMs: out, backlog, written };
}
