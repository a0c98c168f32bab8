/**
 * A consumer under test's final state (consumers.service.state): its command, run once after the
 * drain (or its HTTP endpoint, asked once), prints the service's entities as JSON, `{ "<key>": <version> }` or
 * `{ "<key>": { "version": n, ... } }`. It is kept in the run folder (STATE_FILE) and the
 * analysis compares each key's version with the truth, as it scores convoy's own strategies.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const STATE_FILE = 'service-state.json';
const STATE_TIMEOUT_MS = 30_000;

/** What the state file holds: the versions, or why there are none. */
export type ServiceState = { versions: Record<string, number> } | { error: string };

/** The versions in the command's output; throws with the reason it is not such JSON. */
export function parseState(text: string): Record<string, number> {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    throw new Error(`not JSON: ${text.slice(0, 200)}`);
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error('expected an object of keys');
  const out: Record<string, number> = {};
  for (const [key, v] of Object.entries(o)) {
    const version = typeof v === 'object' && v !== null ? (v as Record<string, unknown>).version : v;
    if (typeof version !== 'number' || !Number.isInteger(version)) throw new Error(`key ${JSON.stringify(key)}: expected an integer version, got ${JSON.stringify(v)}`);
    out[key] = version;
  }
  return out;
}

/** Asks the service's state (its command, or its URL) and writes what it said (or why not) into the run folder. */
export async function recordState(how: { command?: string[]; url?: string }, cwd: string | undefined, env: Record<string, string | undefined>, runDir: string): Promise<ServiceState> {
  const state = how.url !== undefined ? await stateByUrl(how.url) : await stateByCommand(how.command!, cwd, env);
  writeFileSync(join(runDir, STATE_FILE), JSON.stringify(state));
  return state;
}

/** GET url: a 2xx answer with the state's JSON. */
async function stateByUrl(url: string): Promise<ServiceState> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(STATE_TIMEOUT_MS) });
    const text = await res.text();
    if (!res.ok) return { error: `GET ${url}: HTTP ${res.status} ${text.slice(0, 200)}` };
    return { versions: parseState(text) };
  } catch (e) {
    const err = e as Error & { cause?: Error };
    return { error: `GET ${url}: ${err.message}${err.cause ? ` (${err.cause.message})` : ''}` };
  }
}

function stateByCommand(command: string[], cwd: string | undefined, env: Record<string, string | undefined>): Promise<ServiceState> {
  const [program, ...args] = command;
  return new Promise((resolve) => {
    execFile(program!, args, { cwd, env, timeout: STATE_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return resolve({ error: `${command.join(' ')}: ${err.message.split('\n')[0]}${stderr ? ` (${stderr.trim().split('\n').slice(-3).join(' / ')})` : ''}` });
      try {
        resolve({ versions: parseState(stdout) });
      } catch (e) {
        resolve({ error: `${command.join(' ')}: ${(e as Error).message}` });
      }
    });
  });
}

export function readState(runDir: string): ServiceState | undefined {
  const file = join(runDir, STATE_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ServiceState) : undefined;
}

/** Keys whose version differs from the truth's (keys with an unreachable message left out). */
export function compareVersions(versions: Record<string, number>, truth: Map<string, { version: number }>, unreachable: Set<string>, examples = 10) {
  const all = new Set([...truth.keys(), ...Object.keys(versions)]);
  let keys = 0;
  let right = 0;
  const wrong: { key: string; expected: number | null; actual: number | null }[] = [];
  for (const key of all) {
    if (unreachable.has(key)) continue;
    keys++;
    const expected = truth.get(key)?.version ?? null;
    const actual = versions[key] ?? null;
    if (expected !== null && expected === actual) right++;
    else wrong.push({ key, expected, actual });
  }
  wrong.sort((a, b) => a.key.localeCompare(b.key, 'en', { numeric: true }));
  return { keys, right, wrong: wrong.length, examples: wrong.slice(0, examples), unreachable: [...unreachable].filter((k) => all.has(k)).length };
}
