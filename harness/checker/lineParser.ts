/**
 * A fast path for history lines: reads the fields the checker uses straight from the line
 * without building an object. It accepts only a plain subset of JSON that it understands
 * completely (one flat object, strings without escapes, numbers, true/false/null); on
 * anything else it returns false and the caller falls back to JSON.parse, so the outcome is
 * always exactly what JSON.parse would give.
 */
import type { Interner } from './interner.ts';

/** Field ids of the members the checker reads (0: any other member). */
export const F_OTHER = 0;
export const F_TYPE = 1;
export const F_KEY = 2;
export const F_PRODUCER = 3;
export const F_SEQ = 4;
export const F_AT = 5;
export const F_OK = 6;
export const F_CONSUMER = 7;
export const F_LANE = 8;
export const F_OFFSET = 9;
export const F_START = 10;
export const F_END = 11;
export const F_OUTCOME = 12;
export const F_NAME = 13;
export const F_KIND = 14;
export const F_PHASE = 15;
const FIELD_COUNT = 16;

export const SRC_STRING = 0;
export const SRC_BYTES = 1;
const EMPTY = Buffer.alloc(0);

/** What a member holds. */
export const K_ABSENT = 0;
export const K_NULL = 1;
export const K_NUMBER = 2;
export const K_STRING = 3;
export const K_TRUE = 4;
export const K_FALSE = 5;
/** An object, an array or anything else no field of the format may hold. */
export const K_OTHER = 6;

/**
 * The members of one event the checker reads, typed: a kind per field, and its number or
 * string. Numbers live in a Float64Array so that parsing a line allocates no boxed numbers.
 */
export class Fields {
  readonly kind = new Uint8Array(FIELD_COUNT);
  readonly num = new Float64Array(FIELD_COUNT);
  readonly str: string[] = new Array<string>(FIELD_COUNT).fill('');
  /** Member spellings learnt from earlier lines (see parseFast). */
  readonly shapes = new Shapes();
  /**
   * Where a string field's text is: `str`, or (SRC_BYTES, from the byte-level parser) the
   * ASCII bytes buf[from, to), so the store can intern it without making a string.
   */
  readonly src = new Uint8Array(FIELD_COUNT);
  readonly from = new Int32Array(FIELD_COUNT);
  readonly to = new Int32Array(FIELD_COUNT);
  buf: Buffer = EMPTY;

  /** The id of string field `f` in `table` (interning it). */
  intern(f: number, table: Interner): number {
    return this.src[f] === SRC_BYTES ? table.idBytes(this.buf, this.from[f], this.to[f]) : table.id(this.str[f]);
  }

  reset(): void {
    const kind = this.kind;
    for (let f = 0; f < FIELD_COUNT; f++) kind[f] = K_ABSENT; // a loop: fill() is a call
  }

  /**
   * Loads the fields of an event object (the in-process path and the JSON.parse fallback):
   * the type, then only the members that type uses. Fields of other members keep stale
   * values: the store reads only the fields of the event's type, all of which are set here.
   */
  fromObject(o: Record<string, unknown>): void {
    const type = o.type;
    this.set(F_TYPE, type);
    if (type === 'process') {
      this.set(F_KEY, o.key);
      this.set(F_PRODUCER, o.producer);
      this.set(F_SEQ, o.seq);
      this.set(F_CONSUMER, o.consumer);
      this.set(F_LANE, o.lane);
      this.set(F_OFFSET, o.offset);
      this.set(F_START, o.start);
      this.set(F_END, o.end);
      this.set(F_OUTCOME, o.outcome);
    } else if (type === 'send' || type === 'ack') {
      this.set(F_KEY, o.key);
      this.set(F_PRODUCER, o.producer);
      this.set(F_SEQ, o.seq);
      this.set(F_AT, o.at);
      this.set(F_OK, o.ok);
      this.set(F_LANE, o.lane);
    } else if (type === 'fault') {
      this.set(F_NAME, o.name);
      this.set(F_KIND, o.kind);
      this.set(F_PHASE, o.phase);
      this.set(F_AT, o.at);
    }
  }

  // An if-chain, not `switch (typeof v)`: about twice as fast in the in-process loop.
  private set(f: number, v: unknown): void {
    if (typeof v === 'string') {
      this.kind[f] = K_STRING;
      this.str[f] = v;
      this.src[f] = SRC_STRING;
    } else if (typeof v === 'number') {
      this.kind[f] = K_NUMBER;
      this.num[f] = v;
    } else if (v === undefined) this.kind[f] = K_ABSENT;
    else if (v === null) this.kind[f] = K_NULL;
    else if (v === true) this.kind[f] = K_TRUE;
    else if (v === false) this.kind[f] = K_FALSE;
    else this.kind[f] = K_OTHER;
  }
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN = 123;
const CLOSE = 125;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;

function isWs(c: number): boolean {
  return c <= 32 && (c === 32 || c === 9 || c === 13 || c === 10);
}

function skipWs(s: string, i: number, to: number): number {
  while (i < to && isWs(s.charCodeAt(i))) i++;
  return i;
}

/**
 * The member names recent lines had, in order, per event type: lines of one type usually
 * spell their members alike, so `"producer":` is checked with one native comparison instead
 * of a loop over its characters. A miss falls back to reading the name and relearns it.
 */
export class Shapes {
  /** Index 0: before the type is known; 1-4: send, ack, process, fault; 5: other types. */
  readonly tokens: string[][] = [[], [], [], [], [], []];
  readonly fields: number[][] = [[], [], [], [], [], []];
}

function shapeOf(type: string): number {
  return type === 'send' ? 1 : type === 'ack' ? 2 : type === 'process' ? 3 : type === 'fault' ? 4 : 5;
}

/**
 * Reads the object in s[from, to) into `out` (reset first). Returns false when the line is
 * outside the fast subset (or not valid JSON); the caller must then use JSON.parse.
 */
export function parseFast(s: string, from: number, to: number, out: Fields): boolean {
  out.reset();
  const shapes = out.shapes;
  let tokens = shapes.tokens[0];
  let fields = shapes.fields[0];
  let k = 0; // member index
  let i = skipWs(s, from, to);
  if (i >= to || s.charCodeAt(i) !== OPEN) return false;
  i = skipWs(s, i + 1, to);
  if (i < to && s.charCodeAt(i) === CLOSE) return trailing(s, i + 1, to);
  for (;;) {
    // Member name, then the colon.
    let field: number;
    const token = k < tokens.length ? tokens[k] : '';
    if (token !== '' && s.startsWith(token, i) && i + token.length <= to) {
      field = fields[k];
      i += token.length;
    } else {
      if (i >= to || s.charCodeAt(i) !== QUOTE) return false;
      const nameStart = i + 1;
      let j = nameStart;
      for (;;) {
        if (j >= to) return false;
        const c = s.charCodeAt(j);
        if (c <= BACKSLASH) {
          if (c === QUOTE) break;
          if (c === BACKSLASH || c < 32) return false;
        }
        j++;
      }
      field = fieldId(s, nameStart, j - nameStart);
      i = j + 1;
      if (i < to && s.charCodeAt(i) === COLON) {
        // Learn the spelling `"name":` for the next line of this shape.
        tokens.length = fields.length = k + 1;
        tokens[k] = s.slice(nameStart - 1, i + 1);
        fields[k] = field;
        i++;
      } else {
        i = skipWs(s, i, to);
        if (i >= to || s.charCodeAt(i) !== COLON) return false;
        i++;
      }
    }
    let c = i < to ? s.charCodeAt(i) : -1;
    if (isWs(c)) {
      i = skipWs(s, i, to);
      c = i < to ? s.charCodeAt(i) : -1;
    }

    // Value.
    if (c === QUOTE) {
      const vStart = i + 1;
      let j = vStart;
      for (;;) {
        if (j >= to) return false;
        const d = s.charCodeAt(j);
        if (d <= BACKSLASH) {
          if (d === QUOTE) break;
          if (d === BACKSLASH || d < 32) return false;
        }
        j++;
      }
      i = j + 1;
      if (field !== F_OTHER) {
        out.kind[field] = K_STRING;
        out.src[field] = SRC_STRING;
        if (field === F_TYPE || field === F_OUTCOME || field === F_PHASE) {
          const v = knownValue(s, vStart, j);
          out.str[field] = v;
          if (field === F_TYPE && k === 0) {
            const shape = shapeOf(v);
            tokens = shapes.tokens[shape];
            fields = shapes.fields[shape];
            // This shape's names start with the same first member.
            if (tokens.length === 0 || tokens[0] !== shapes.tokens[0][0]) {
              tokens.length = fields.length = 1;
              tokens[0] = shapes.tokens[0][0] ?? '';
              fields[0] = F_TYPE;
            }
          }
        } else {
          out.str[field] = s.slice(vStart, j);
        }
      }
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      // JSON number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
      const nStart = i;
      let neg = false;
      if (c === MINUS) {
        neg = true;
        i++;
      }
      if (i >= to) return false;
      let d = s.charCodeAt(i);
      let int = 0;
      if (d === ZERO) {
        i++;
      } else if (d > ZERO && d <= NINE) {
        while (i < to) {
          d = s.charCodeAt(i);
          if (d < ZERO || d > NINE) break;
          int = int * 10 + (d - ZERO);
          i++;
        }
      } else return false;
      let simple = true;
      if (i < to && s.charCodeAt(i) === DOT) {
        simple = false;
        i++;
        const fs = i;
        while (i < to && (d = s.charCodeAt(i)) >= ZERO && d <= NINE) i++;
        if (i === fs) return false;
      }
      if (i < to && ((d = s.charCodeAt(i)) === 101 || d === 69)) {
        simple = false;
        i++;
        if (i < to && ((d = s.charCodeAt(i)) === 43 || d === MINUS)) i++;
        const es = i;
        while (i < to && (d = s.charCodeAt(i)) >= ZERO && d <= NINE) i++;
        if (i === es) return false;
      }
      if (field !== F_OTHER) {
        out.kind[field] = K_NUMBER;
        // The running value is exact while it stays a safe integer (each step is below the
        // result); otherwise let the engine convert (the same conversion JSON.parse uses).
        out.num[field] = simple && int <= 9007199254740991 ? (neg ? -int : int) : Number(s.slice(nStart, i));
      }
    } else if (c === 116 /* t */ && s.startsWith('true', i) && i + 4 <= to) {
      out.kind[field] = K_TRUE;
      i += 4;
    } else if (c === 102 /* f */ && s.startsWith('false', i) && i + 5 <= to) {
      out.kind[field] = K_FALSE;
      i += 5;
    } else if (c === 110 /* n */ && s.startsWith('null', i) && i + 4 <= to) {
      out.kind[field] = K_NULL;
      i += 4;
    } else {
      return false; // nested object or array, or not JSON
    }
    k++;

    // Separator.
    let sep = i < to ? s.charCodeAt(i) : -1;
    if (isWs(sep)) {
      i = skipWs(s, i, to);
      sep = i < to ? s.charCodeAt(i) : -1;
    }
    i++;
    if (sep === COMMA) {
      if (i < to && isWs(s.charCodeAt(i))) i = skipWs(s, i, to);
      continue;
    }
    return sep === CLOSE && trailing(s, i, to);
  }
}

function trailing(s: string, i: number, to: number): boolean {
  while (i < to && isWs(s.charCodeAt(i))) i++;
  return i === to;
}

/** Enumerated values (type, outcome, phase) as shared constants, without a new string. */
function knownValue(s: string, a: number, b: number): string {
  switch (b - a) {
    case 2:
      if (s.charCodeAt(a) === 111 /* o */ && s.charCodeAt(a + 1) === 107 /* k */) return 'ok';
      break;
    case 3:
      if (s.startsWith('ack', a)) return 'ack';
      if (s.startsWith('end', a)) return 'end';
      break;
    case 4:
      if (s.startsWith('send', a)) return 'send';
      break;
    case 5:
      if (s.startsWith('error', a)) return 'error';
      if (s.startsWith('start', a)) return 'start';
      if (s.startsWith('fault', a)) return 'fault';
      break;
    case 7:
      if (s.startsWith('process', a)) return 'process';
      break;
  }
  return s.slice(a, b);
}

/**
 * The field a member name denotes: dispatch on length and first letter, then compare the
 * remaining characters inline (this runs for every member of every line).
 */
function fieldId(s: string, a: number, n: number): number {
  const c = s.charCodeAt(a);
  switch (n) {
    case 2:
      if (c === 97 /* at */) return s.charCodeAt(a + 1) === 116 ? F_AT : F_OTHER;
      if (c === 111 /* ok */) return s.charCodeAt(a + 1) === 107 ? F_OK : F_OTHER;
      return F_OTHER;
    case 3:
      if (c === 107 /* key */) return s.charCodeAt(a + 1) === 101 && s.charCodeAt(a + 2) === 121 ? F_KEY : F_OTHER;
      if (c === 115 /* seq */) return s.charCodeAt(a + 1) === 101 && s.charCodeAt(a + 2) === 113 ? F_SEQ : F_OTHER;
      if (c === 101 /* end */) return s.charCodeAt(a + 1) === 110 && s.charCodeAt(a + 2) === 100 ? F_END : F_OTHER;
      return F_OTHER;
    case 4:
      if (c === 116 /* type */) return s.charCodeAt(a + 1) === 121 && s.charCodeAt(a + 2) === 112 && s.charCodeAt(a + 3) === 101 ? F_TYPE : F_OTHER;
      if (c === 108 /* lane */) return s.charCodeAt(a + 1) === 97 && s.charCodeAt(a + 2) === 110 && s.charCodeAt(a + 3) === 101 ? F_LANE : F_OTHER;
      if (c === 110 /* name */) return s.charCodeAt(a + 1) === 97 && s.charCodeAt(a + 2) === 109 && s.charCodeAt(a + 3) === 101 ? F_NAME : F_OTHER;
      if (c === 107 /* kind */) return s.charCodeAt(a + 1) === 105 && s.charCodeAt(a + 2) === 110 && s.charCodeAt(a + 3) === 100 ? F_KIND : F_OTHER;
      return F_OTHER;
    case 5:
      if (c === 115 /* start */) return s.charCodeAt(a + 1) === 116 && s.charCodeAt(a + 2) === 97 && s.charCodeAt(a + 3) === 114 && s.charCodeAt(a + 4) === 116 ? F_START : F_OTHER;
      if (c === 112 /* phase */) return s.charCodeAt(a + 1) === 104 && s.charCodeAt(a + 2) === 97 && s.charCodeAt(a + 3) === 115 && s.charCodeAt(a + 4) === 101 ? F_PHASE : F_OTHER;
      return F_OTHER;
    case 6:
      if (c === 111 /* offset */) return s.charCodeAt(a + 1) === 102 && s.charCodeAt(a + 2) === 102 && s.charCodeAt(a + 3) === 115 && s.charCodeAt(a + 4) === 101 && s.charCodeAt(a + 5) === 116 ? F_OFFSET : F_OTHER;
      return F_OTHER;
    case 7:
      if (c === 111 /* outcome */) return s.charCodeAt(a + 1) === 117 && s.charCodeAt(a + 2) === 116 && s.charCodeAt(a + 3) === 99 && s.charCodeAt(a + 4) === 111 && s.charCodeAt(a + 5) === 109 && s.charCodeAt(a + 6) === 101 ? F_OUTCOME : F_OTHER;
      return F_OTHER;
    case 8:
      if (c === 112 /* producer */) return s.charCodeAt(a + 1) === 114 && s.charCodeAt(a + 2) === 111 && s.charCodeAt(a + 3) === 100 && s.charCodeAt(a + 4) === 117 && s.charCodeAt(a + 5) === 99 && s.charCodeAt(a + 6) === 101 && s.charCodeAt(a + 7) === 114 ? F_PRODUCER : F_OTHER;
      if (c === 99 /* consumer */) return s.charCodeAt(a + 1) === 111 && s.charCodeAt(a + 2) === 110 && s.charCodeAt(a + 3) === 115 && s.charCodeAt(a + 4) === 117 && s.charCodeAt(a + 5) === 109 && s.charCodeAt(a + 6) === 101 && s.charCodeAt(a + 7) === 114 ? F_CONSUMER : F_OTHER;
      return F_OTHER;
    default:
      return F_OTHER;
  }
}
