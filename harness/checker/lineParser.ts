/**
 * A fast path for history lines: reads the fields the checker uses straight from the line
 * without building an object. It accepts only a plain subset of JSON that it understands
 * completely (one flat object, strings without escapes, numbers, true/false/null); on
 * anything else it returns false and the caller falls back to JSON.parse, so the outcome is
 * always exactly what JSON.parse would give.
 */

/** The fields the checker reads. `undefined` = absent; other types are kept for validation. */
export class LineFields {
  type: unknown = undefined;
  key: unknown = undefined;
  producer: unknown = undefined;
  seq: unknown = undefined;
  at: unknown = undefined;
  ok: unknown = undefined;
  consumer: unknown = undefined;
  lane: unknown = undefined;
  offset: unknown = undefined;
  start: unknown = undefined;
  end: unknown = undefined;
  outcome: unknown = undefined;
  name: unknown = undefined;
  kind: unknown = undefined;
  phase: unknown = undefined;

  reset(): void {
    this.type = undefined;
    this.key = undefined;
    this.producer = undefined;
    this.seq = undefined;
    this.at = undefined;
    this.ok = undefined;
    this.consumer = undefined;
    this.lane = undefined;
    this.offset = undefined;
    this.start = undefined;
    this.end = undefined;
    this.outcome = undefined;
    this.name = undefined;
    this.kind = undefined;
    this.phase = undefined;
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

// Field ids, recognised from the name's length and text.
const F_OTHER = 0;
const F_TYPE = 1;
const F_KEY = 2;
const F_PRODUCER = 3;
const F_SEQ = 4;
const F_AT = 5;
const F_OK = 6;
const F_CONSUMER = 7;
const F_LANE = 8;
const F_OFFSET = 9;
const F_START = 10;
const F_END = 11;
const F_OUTCOME = 12;
const F_NAME = 13;
const F_KIND = 14;
const F_PHASE = 15;

function isWs(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10;
}

/**
 * Reads the object in s[from, to) into `out` (reset first). Returns false when the line is
 * outside the fast subset (or not valid JSON); the caller must then use JSON.parse.
 */
export function parseFast(s: string, from: number, to: number, out: LineFields): boolean {
  out.reset();
  let i = from;
  while (i < to && isWs(s.charCodeAt(i))) i++;
  if (i >= to || s.charCodeAt(i) !== OPEN) return false;
  i++;
  while (i < to && isWs(s.charCodeAt(i))) i++;
  if (i < to && s.charCodeAt(i) === CLOSE) {
    i++;
    return trailing(s, i, to);
  }
  for (;;) {
    // Member name.
    if (i >= to || s.charCodeAt(i) !== QUOTE) return false;
    const nameStart = i + 1;
    let j = nameStart;
    for (;;) {
      if (j >= to) return false;
      const c = s.charCodeAt(j);
      if (c === QUOTE) break;
      if (c === BACKSLASH || c < 32) return false;
      j++;
    }
    const field = fieldId(s, nameStart, j - nameStart);
    i = j + 1;
    while (i < to && isWs(s.charCodeAt(i))) i++;
    if (i >= to || s.charCodeAt(i) !== COLON) return false;
    i++;
    while (i < to && isWs(s.charCodeAt(i))) i++;
    if (i >= to) return false;

    // Value.
    const c = s.charCodeAt(i);
    let value: unknown;
    if (c === QUOTE) {
      const vStart = i + 1;
      j = vStart;
      for (;;) {
        if (j >= to) return false;
        const d = s.charCodeAt(j);
        if (d === QUOTE) break;
        if (d === BACKSLASH || d < 32) return false;
        j++;
      }
      i = j + 1;
      if (field === F_OTHER) value = undefined;
      else if (field === F_TYPE) value = knownType(s, vStart, j);
      else value = s.slice(vStart, j);
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      // JSON number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
      const nStart = i;
      let neg = false;
      if (c === MINUS) {
        neg = true;
        i++;
      }
      const intStart = i;
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
      const intDigits = i - intStart;
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
      if (field === F_OTHER) value = undefined;
      // Up to 15 digits the running value is exact; otherwise let the engine convert (the
      // same conversion JSON.parse uses).
      else if (simple && intDigits <= 15) value = neg ? -int : int;
      else value = Number(s.slice(nStart, i));
    } else if (c === 116 /* t */ && s.startsWith('true', i)) {
      value = true;
      i += 4;
    } else if (c === 102 /* f */ && s.startsWith('false', i)) {
      value = false;
      i += 5;
    } else if (c === 110 /* n */ && s.startsWith('null', i)) {
      value = null;
      i += 4;
    } else {
      return false; // nested object or array, or not JSON
    }
    assign(out, field, value);

    while (i < to && isWs(s.charCodeAt(i))) i++;
    if (i >= to) return false;
    const sep = s.charCodeAt(i);
    i++;
    if (sep === CLOSE) return trailing(s, i, to);
    if (sep !== COMMA) return false;
    while (i < to && isWs(s.charCodeAt(i))) i++;
  }
}

function trailing(s: string, i: number, to: number): boolean {
  while (i < to && isWs(s.charCodeAt(i))) i++;
  return i === to;
}

/** The type name as a shared constant when it is one the checker reads. */
function knownType(s: string, a: number, b: number): string {
  const n = b - a;
  if (n === 7 && s.startsWith('process', a)) return 'process';
  if (n === 4 && s.startsWith('send', a)) return 'send';
  if (n === 3 && s.startsWith('ack', a)) return 'ack';
  if (n === 5 && s.startsWith('fault', a)) return 'fault';
  return s.slice(a, b);
}

function fieldId(s: string, a: number, n: number): number {
  switch (n) {
    case 2:
      if (s.startsWith('at', a)) return F_AT;
      if (s.startsWith('ok', a)) return F_OK;
      return F_OTHER;
    case 3:
      if (s.startsWith('key', a)) return F_KEY;
      if (s.startsWith('seq', a)) return F_SEQ;
      if (s.startsWith('end', a)) return F_END;
      return F_OTHER;
    case 4:
      if (s.startsWith('type', a)) return F_TYPE;
      if (s.startsWith('lane', a)) return F_LANE;
      if (s.startsWith('name', a)) return F_NAME;
      if (s.startsWith('kind', a)) return F_KIND;
      return F_OTHER;
    case 5:
      if (s.startsWith('start', a)) return F_START;
      if (s.startsWith('phase', a)) return F_PHASE;
      return F_OTHER;
    case 6:
      return s.startsWith('offset', a) ? F_OFFSET : F_OTHER;
    case 7:
      return s.startsWith('outcome', a) ? F_OUTCOME : F_OTHER;
    case 8:
      if (s.startsWith('producer', a)) return F_PRODUCER;
      if (s.startsWith('consumer', a)) return F_CONSUMER;
      return F_OTHER;
    default:
      return F_OTHER;
  }
}

function assign(out: LineFields, field: number, value: unknown): void {
  switch (field) {
    case F_TYPE: out.type = value; break;
    case F_KEY: out.key = value; break;
    case F_PRODUCER: out.producer = value; break;
    case F_SEQ: out.seq = value; break;
    case F_AT: out.at = value; break;
    case F_OK: out.ok = value; break;
    case F_CONSUMER: out.consumer = value; break;
    case F_LANE: out.lane = value; break;
    case F_OFFSET: out.offset = value; break;
    case F_START: out.start = value; break;
    case F_END: out.end = value; break;
    case F_OUTCOME: out.outcome = value; break;
    case F_NAME: out.name = value; break;
    case F_KIND: out.kind = value; break;
    case F_PHASE: out.phase = value; break;
  }
}
