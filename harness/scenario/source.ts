/**
 * What a result records of where its scenario came from: the file as given, and the text of
 * that file and of every file it extends. With the resolved scenario beside it, a rerun needs
 * neither the parent files nor a checkout; the texts show what the author wrote.
 */
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { resolveExtends, type SourceFile } from './extends.ts';

export interface ScenarioSource {
  /** The scenario file (relative to the working folder when inside it). */
  file: string;
  /** The file and each file it extends, in that order, with their text. */
  files: SourceFile[];
}

/** Reads a scenario file and what it extends; undefined when it cannot be read (the run goes on). */
export async function readScenarioSource(file: string): Promise<ScenarioSource | undefined> {
  try {
    const { files } = await resolveExtends(await readFile(file, 'utf8'), file);
    return { file: shortPath(file), files: files.map((f) => ({ path: shortPath(f.path), text: f.text })) };
  } catch {
    return undefined;
  }
}

function shortPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') || rel === '' ? path : rel;
}
