/**
 * Log lines from chatty clients: the same text at most once per `everyMs`. `shape` maps a line
 * to what counts as "the same" (for example with a session id taken out), so a message that
 * names one of a hundred sessions is still shown once, with a count of the ones left out.
 */
export function throttledLog(log: (l: string) => void, everyMs = 5_000, shape: (line: string) => string = (l) => l): (l: string) => void {
  const last = new Map<string, { at: number; skipped: number }>();
  return (line: string) => {
    const key = shape(line).slice(0, 160);
    const now = Date.now();
    const seen = last.get(key);
    if (seen && seen.at + everyMs > now) {
      seen.skipped++;
      return;
    }
    if (last.size > 500) last.clear();
    last.set(key, { at: now, skipped: 0 });
    log(seen?.skipped ? `${line} (and ${seen.skipped} more like it)` : line);
  };
}
