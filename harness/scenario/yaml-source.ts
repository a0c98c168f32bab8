/**
 * YAML with positions: a scenario file's data, and beside it where each value was written
 * (`Origin`, a tree of the same shape), so that any problem found later, by path, can be
 * reported as `file:line:col`. Origins survive `extends:` (extends.ts merges them with the data):
 * a value inherited from a parent file points into the parent.
 */
import { LineCounter, isAlias, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { InputError } from '../errors.ts';
import { isObject, show } from './values.ts';

export interface Position {
  file: string;
  /** 1-based, as editors count. */
  line: number;
  col: number;
}

/** Where a value was written: a mapping entry at its key, a list item at the item. */
export interface Origin {
  at: Position;
  /** A mapping's entries by key, or a list's items by index. */
  children?: Map<string, Origin> | Origin[];
}

export interface YamlSource {
  file: string;
  data: Record<string, unknown>;
  origin: Origin;
}

/** Parses one scenario file: a mapping at the top, unique keys, at most 100 alias expansions. */
export function parseYamlSource(text: string, file: string): YamlSource {
  const lines = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true, lineCounter: lines });
  if (doc.errors.length) {
    const problems = doc.errors.map((e) => {
      const pos = e.linePos?.[0];
      const where = pos ? `${file}:${pos.line}:${pos.col}` : file;
      const first = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      return `${where}: YAML syntax error: ${first}`;
    });
    throw new InputError(`${file}: not valid YAML`, problems);
  }
  const data = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (!isObject(data)) throw new InputError(`${file}: expected a mapping at the top of the file, got ${show(data)}`);
  const at = (offset: number | undefined): Position => ({ file, ...(offset === undefined ? { line: 1, col: 1 } : lines.linePos(offset)) });
  return { file, data, origin: originOf(doc, doc.contents as Node | null, at(doc.contents?.range?.[0] ?? 0), at, 0) };
}

function originOf(doc: Document, node: Node | null, here: Position, at: (offset: number | undefined) => Position, depth: number): Origin {
  if (depth > 50) return { at: here };
  if (node && isAlias(node)) node = (node.resolve(doc) as Node | undefined) ?? null;
  if (node && isMap(node)) {
    const children = new Map<string, Origin>();
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const keyAt = at((pair.key as Node | null)?.range?.[0] ?? (pair.value as Node | null)?.range?.[0]);
      children.set(key, originOf(doc, pair.value as Node | null, keyAt, at, depth + 1));
    }
    return { at: here, children };
  }
  if (node && isSeq(node)) {
    return { at: here, children: node.items.map((item) => originOf(doc, item as Node | null, at((item as Node | null)?.range?.[0]), at, depth + 1)) };
  }
  return { at: here };
}

/**
 * Where the value at `path` (as problems name it: `workload.producers[0].name`) was written: the
 * deepest part of the path the file has (a missing property points at its parent). Keys with
 * dots (broker settings like `max.poll.interval.ms`) are found too.
 */
export function positionOf(origin: Origin, path: string): Position {
  const segments = splitPath(path);
  let cur = origin;
  for (let i = 0; i < segments.length; i++) {
    const c = cur.children;
    let next: Origin | undefined;
    if (Array.isArray(c)) next = /^\d+$/.test(segments[i]) ? c[Number(segments[i])] : undefined;
    else if (c) {
      // The longest run of segments that names one key (a key may contain dots).
      for (let j = segments.length; j > i && !next; j--) {
        const key = segments.slice(i, j).join('.');
        const found = c.get(key);
        if (found) {
          next = found;
          i = j - 1;
        }
      }
    }
    if (!next) break;
    cur = next;
  }
  return cur.at;
}

/** "workload.producers[0].name" → ["workload", "producers", "0", "name"]; "(top level)" → []. */
export function splitPath(path: string): string[] {
  if (path === '(top level)' || path === '') return [];
  return path.replace(/\[(\d+)\]/g, '.$1').split('.').filter((s) => s !== '');
}

/**
 * The path a problem line starts with, if it starts with one: `<path>: ...`, or a path of
 * several parts as the subject of a sentence (`broker.producer.idempotent allows at most 5`,
 * as a broker module's own checks word theirs).
 */
export function pathOfProblem(line: string): string | undefined {
  const m = /^([A-Za-z0-9_$\-[\].]+|\(top level\)): /.exec(line) ?? /^([A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+|\[\d+\])+) /.exec(line);
  return m?.[1];
}

/** `file:line:col: <problem>`; a line that names no path is left as it is. */
export function locate(origin: Origin | undefined, line: string): string {
  const path = pathOfProblem(line);
  if (!origin || path === undefined) return line;
  const p = positionOf(origin, path);
  return `${p.file}:${p.line}:${p.col}: ${line}`;
}
