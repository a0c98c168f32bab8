import { homedir } from 'node:os';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';

/**
 * The cache shared by every checkout: downloaded broker jars, built binaries, state of
 * brokers started with `convoy brokers up`. Override with CONVOY_CACHE.
 */
export function cacheDir(...parts: string[]): string {
  const base = process.env.CONVOY_CACHE || join(homedir(), '.cache', 'convoy');
  const dir = join(base, ...parts);
  mkdirSync(dir, { recursive: true });
  return dir;
}
