/** Reads a text file line by line, synchronously, in fixed-size chunks (bounded memory). */
import { closeSync, openSync, readSync } from 'node:fs';

const CHUNK = 1 << 20;

export function forEachLine(path: string, onLine: (line: string) => void): void {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    let rest = '';
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      // Decode on a line boundary so a multi-byte character is never split.
      const lastNl = buf.lastIndexOf(10, n - 1);
      if (lastNl < 0) {
        rest += buf.toString('utf8', 0, n);
        continue;
      }
      const text = rest + buf.toString('utf8', 0, lastNl);
      rest = buf.toString('utf8', lastNl + 1, n);
      for (const line of text.split('\n')) if (line) onLine(line);
    }
    if (rest) onLine(rest);
  } finally {
    closeSync(fd);
  }
}
