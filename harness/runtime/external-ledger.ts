/**
 * What each run on the external runtime created on a cluster it does not own, written before
 * it creates anything and forgotten once it deleted it: a run killed mid-way (even by SIGKILL)
 * leaves its entry, and `convoy clean --external` finds and deletes what it names. One file per
 * run in $XDG_STATE_HOME/convoy/external-runs (default ~/.local/state/convoy/external-runs).
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface ExternalRunEntry {
  runId: string;
  /** `convoy-<run-id>`: every name the run gave starts with it. */
  prefix: string;
  /** The broker kind. */
  broker: string;
  /** The connection's address (bootstrap servers, a URL without its password, ...): clean acts only on entries of the connection it is given. */
  where: string;
  /** What the run creates, for the clean's lines ("topic convoy-…", "group convoy-…-group"). */
  what: string[];
  /** The run's resolved broker settings: what it created follows from them (a RabbitMQ topology's lanes, a dead-letter topic). */
  settings?: Record<string, unknown>;
  createdAt: string;
}

export function ledgerDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'convoy', 'external-runs');
}

function entryFile(runId: string): string {
  return join(ledgerDir(), `${runId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
}

/** Written (atomically) before the run creates anything. */
export function recordExternalRun(entry: ExternalRunEntry): void {
  mkdirSync(ledgerDir(), { recursive: true });
  const file = entryFile(entry.runId);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(entry, null, 2) + '\n');
  renameSync(tmp, file);
}

/** Once what the run created is gone. */
export function forgetExternalRun(runId: string): void {
  rmSync(entryFile(runId), { force: true });
}

/** Every entry left, oldest first; unreadable files are skipped. */
export function externalRuns(): ExternalRunEntry[] {
  let files: string[];
  try {
    files = readdirSync(ledgerDir()).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  const out: ExternalRunEntry[] = [];
  for (const f of files) {
    try {
      const e = JSON.parse(readFileSync(join(ledgerDir(), f), 'utf8')) as ExternalRunEntry;
      if (typeof e.runId === 'string' && typeof e.prefix === 'string' && typeof e.broker === 'string') out.push(e);
    } catch {
      /* a half-written or foreign file: not ours to act on */
    }
  }
  return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}
