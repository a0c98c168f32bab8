import { createReadStream, createWriteStream, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { historyHeader } from '../history/schema.ts';

/** Concatenates the processes' history files into the run's one (the format allows any line order). */
export async function mergeHistories(histDir: string, target: string): Promise<void> {
  const out = createWriteStream(target);
  // The header first: the format and its version (harness/history/schema.ts).
  out.write(JSON.stringify(historyHeader()) + '\n');
  for (const f of readdirSync(histDir).filter((f) => f.endsWith('.jsonl')).sort()) {
    for await (const chunk of createReadStream(join(histDir, f))) {
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    }
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}
