/** Checks a history file, streaming it so its size is bounded by the columns, not the text. */
import { open, stat } from 'node:fs/promises';
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
