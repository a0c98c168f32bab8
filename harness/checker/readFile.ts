/** Checks a history file, streaming it so its size is bounded by the columns, not the text. */
import { open, stat } from 'node:fs/promises';
import { HISTORY_FORMAT, HISTORY_VERSIONS_READ } from '../history/schema.ts';
import { InputError } from '../errors.ts';
import { Checker, HistoryLineError, type CheckOutcome, type CheckerOptions, type FinishOptions } from './checker.ts';

/** Large reads into one reused buffer: fewer calls, no buffer per chunk (the checker copies a split line). */
const CHUNK_BYTES = 8 << 20;

/**
 * Reads and checks a JSONL history. A bad line (when not lenient) or an unreadable file is an
 * InputError naming `path:line`.
 */
export async function checkFile(path: string, options: CheckerOptions & FinishOptions = {}): Promise<CheckOutcome> {
  const checker = new Checker(options);
  await feedFile(checker, path);
  return checker.finish(options);
}

/** Streams a file into a checker (and ends it). */
export async function feedFile(checker: Checker, path: string): Promise<void> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new InputError(`${path}: not a file`);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`${path}: cannot read the history (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  await checkHistoryVersion(path);
  try {
    const file = await open(path, 'r');
    try {
      const buf = Buffer.allocUnsafe(CHUNK_BYTES);
      for (;;) {
        const { bytesRead } = await file.read(buf, 0, CHUNK_BYTES, null);
        if (bytesRead === 0) break;
        checker.write(buf.subarray(0, bytesRead));
      }
    } finally {
      await file.close();
    }
    checker.end();
  } catch (err) {
    if (err instanceof HistoryLineError) throw new InputError(`${path}:${err.line}: ${err.reason}`, [], { cause: err });
    if (err instanceof InputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code) throw new InputError(`${path}: cannot read the history (${code})`, [], { cause: err });
    throw err;
  }
}

/**
 * A history's header names its format version: one this convoy does not read is refused (exit
 * 2) rather than misread. A history without a header predates it and reads as version 1.
 */
export async function checkHistoryVersion(path: string): Promise<number> {
  const file = await open(path, 'r');
  let first: string;
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await file.read(buf, 0, buf.length, 0);
    first = buf.subarray(0, bytesRead).toString('utf8').split('\n')[0];
  } finally {
    await file.close();
  }
  if (!first.includes('"header"')) return HISTORY_VERSIONS_READ[0];
  let header: { type?: unknown; format?: unknown; version?: unknown };
  try {
    header = JSON.parse(first) as typeof header;
  } catch {
    return HISTORY_VERSIONS_READ[0]; // not a header line after all; the checker reports a bad line
  }
  if (header.type !== 'header') return HISTORY_VERSIONS_READ[0];
  if (header.format !== HISTORY_FORMAT) throw new InputError(`${path}:1: not a convoy history: format ${JSON.stringify(header.format)}, expected "${HISTORY_FORMAT}"`);
  if (typeof header.version !== 'number' || !HISTORY_VERSIONS_READ.includes(header.version)) {
    throw new InputError(`${path}:1: history format version ${JSON.stringify(header.version)} is not one this convoy reads (${HISTORY_VERSIONS_READ.join(', ')}); use a newer convoy`);
  }
  return header.version;
}
