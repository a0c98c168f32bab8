import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * The producers' rate as the producer perf tool counts its own: messages acknowledged over the
 * time from the first send to the last acknowledgement, read from the run's history (per-second
 * buckets are too coarse for a run of a second or two).
 */
export async function ackedRate(historyFile: string): Promise<{ messages: number; seconds: number; rate: number }> {
  let first = Infinity;
  let last = 0;
  let messages = 0;
  const lines = createInterface({ input: createReadStream(historyFile), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.startsWith('{"type":"send"')) {
      const at = Number(/"at":(\d+)/.exec(line)?.[1]);
      if (at < first) first = at;
    } else if (line.startsWith('{"type":"ack"') && line.includes('"ok":true')) {
      messages++;
      const at = Number(/"at":(\d+)/.exec(line)?.[1]);
      if (at > last) last = at;
    }
  }
  const seconds = messages > 0 && last > first ? (last - first) / 1e6 : 0;
  return { messages, seconds, rate: seconds > 0 ? messages / seconds : 0 };
}
