/**
 * A run's record (RunRecord) kept in its folder as `record.json`, so `convoy check <run folder>`
 * can analyse the run again, with its own scenario, expectations, settle time and the reasons
 * it may have been incomplete, and give the verdict the run gave. Paths are kept relative to
 * the folder (it may be moved or copied to another machine), the endpoint without secrets, a
 * failure as its name, message and detail lines.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { InputError } from '../errors.ts';
import { redactSecrets } from '../checker/result.ts';
import type { RunRecord } from './record.ts';

export const RECORD_FILE = 'record.json';
const VERSION = 1;

const inside = (dir: string, file: string) => (isAbsolute(file) ? relative(dir, file) : file);

export function writeRunRecord(record: RunRecord): void {
  const { runDir } = record;
  const failure = record.failure ? { name: record.failure.name, message: record.failure.message, detail: (record.failure as { detail?: unknown }).detail } : undefined;
  const kept = {
    recordVersion: VERSION,
    ...record,
    runDir: '.',
    historyFile: inside(runDir, record.historyFile),
    storeFile: inside(runDir, record.storeFile),
    ...(record.gateway ? { gateway: { ...record.gateway, storeFile: inside(runDir, record.gateway.storeFile) } } : {}),
    ...(record.deployment ? { deployment: { ...record.deployment, endpoint: redactSecrets(record.deployment.endpoint ?? null) } } : {}),
    failure,
  };
  writeFileSync(join(runDir, RECORD_FILE), JSON.stringify(kept, null, 2));
}

/** The record of the run in `dir`, its paths pointing into `dir`; null when the folder has none. */
export function readRunRecord(dir: string): RunRecord | null {
  const file = join(dir, RECORD_FILE);
  if (!existsSync(file)) return null;
  let raw: Record<string, any>;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>;
  } catch (err) {
    throw new InputError(`${file}: not a run record (${(err as Error).message})`);
  }
  if (raw.recordVersion !== VERSION || typeof raw.historyFile !== 'string' || !raw.scenario) {
    throw new InputError(`${file}: a run record this convoy cannot read (version ${String(raw.recordVersion)}; expected ${VERSION})`);
  }
  const at = (p: string) => (isAbsolute(p) ? p : join(dir, p));
  const failure = raw.failure ? Object.assign(new Error(String(raw.failure.message)), { name: String(raw.failure.name), ...(raw.failure.detail ? { detail: raw.failure.detail } : {}) }) : undefined;
  const { recordVersion: _v, ...rest } = raw;
  return {
    ...(rest as RunRecord),
    runDir: dir,
    historyFile: at(raw.historyFile),
    storeFile: at(raw.storeFile),
    ...(raw.gateway ? { gateway: { ...raw.gateway, storeFile: at(raw.gateway.storeFile) } } : {}),
    failure,
  };
}
