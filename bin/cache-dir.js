// convoy's cache folder for the scripts in bin/, which run before any TypeScript can: the same
// rule as harness/runtime/cache.ts (CONVOY_CACHE, else ~/.cache/convoy).
import { homedir } from 'node:os';
import { join } from 'node:path';

export function cacheDir() {
  return process.env.CONVOY_CACHE || join(homedir(), '.cache', 'convoy');
}
