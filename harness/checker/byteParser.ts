/**
 * The fast path for history lines as bytes (offline checks): reads the fields the checker
 * uses straight from the UTF-8 bytes of one line, without decoding the line or cutting a
 * substring per member. Keys, producers, consumers and lanes are left as byte ranges for the
 * store to intern (see Fields.intern), so a line usually makes no string at all.
 *
 * Like parseFast it accepts only a plain subset of JSON (one flat object; strings without
 * escapes or control characters; numbers; true/false/null) and returns false on anything
 * else, so the caller decodes the line and takes the string path: results, error messages
 * and line numbers are those of JSON.parse.
 *
 * Decoding one string member on its own gives the same text as decoding the whole line:
 * the quotes around it are ASCII, and a UTF-8 decoder never lets an ASCII byte join (or
 * end) a multi-byte sequence.
 */
import {
  F_CONSUMER, F_END, F_KEY, F_KIND, F_LANE, F_NAME, F_OFFSET, F_OK, F_OTHER, F_OUTCOME, F_PHASE, F_PRODUCER, F_SEQ, F_START, F_AT, F_TYPE,
  K_FALSE, K_NULL, K_NUMBER, K_STRING, K_TRUE, SRC_BYTES, SRC_STRING,
  type Fields,
} from './lineParser.ts';

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

/** Fields the store interns: kept as bytes when ASCII. */
const INTERNED = new Uint8Array(16);
INTERNED[F_KEY] = INTERNED[F_PRODUCER] = INTERNED[F_CONSUMER] = INTERNED[F_LANE] = 1;

function isWs(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10;
}

/**
 * Reads the object in b[from, to) into `out` (reset first). Returns false when the line is
 * outside the fast subset (or not valid JSON); the caller must then decode it and use the
 * string path.
 */
export function parseBytes(b: Buffer, from: number, to: number, out: Fields): boolean {
  out.reset();
  out.buf = b;
  const { kind, num, src } = out;
  let i = from;
  while (i < to && isWs(b[i])) i++;
  if (i >= to || b[i] !== OPEN) return false;
  i++;
  while (i < to && isWs(b[i])) i++;
  if (i < to && b[i] === CLOSE) return trailing(b, i + 1, to);
  for (;;) {
    // Member name, then the colon.
    if (i >= to || b[i] !== QUOTE) return false;
    const nameStart = i + 1;
    let j = nameStart;
    for (;;) {
      if (j >= to) return false;
      const c = b[j];
      if (c === QUOTE) break;
      if (c === BACKSLASH || c < 32) return false;
      j++;
    }
    const field = fieldId(b, nameStart, j - nameStart);
    i = j + 1;
    // Whitespace between tokens is rare: test for it once before looping.
    if (i < to && b[i] !== COLON) while (i < to && isWs(b[i])) i++;
    if (i >= to || b[i] !== COLON) return false;
    i++;
    let c = i < to ? b[i] : -1;
    if (isWs(c)) {
      while (i < to && isWs(b[i])) i++;
      c = i < to ? b[i] : -1;
    }

    // Value.
    if (c === QUOTE) {
      const vStart = i + 1;
      let high = 0; // any byte >= 0x80?
      j = vStart;
      for (;;) {
        if (j >= to) return false;
        const d = b[j];
        if (d === QUOTE) break;
        if (d === BACKSLASH || d < 32) return false;
        high |= d;
        j++;
      }
      i = j + 1;
      if (field !== F_OTHER) {
        kind[field] = K_STRING;
        if (INTERNED[field] === 1 && high < 128) {
          src[field] = SRC_BYTES;
          out.from[field] = vStart;
          out.to[field] = j;
        } else {
          src[field] = SRC_STRING;
          out.str[field] = high < 128 && (field === F_TYPE || field === F_OUTCOME || field === F_PHASE) ? knownValue(b, vStart, j) : b.toString('utf8', vStart, j);
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
      let d = b[i];
      let int = 0;
      if (d === ZERO) {
        i++;
      } else if (d > ZERO && d <= NINE) {
        while (i < to) {
          d = b[i];
          if (d < ZERO || d > NINE) break;
          int = int * 10 + (d - ZERO);
          i++;
        }
      } else return false;
      let simple = true;
      if (i < to && b[i] === DOT) {
        simple = false;
        i++;
        const fs = i;
        while (i < to && (d = b[i]) >= ZERO && d <= NINE) i++;
        if (i === fs) return false;
      }
      if (i < to && ((d = b[i]) === 101 || d === 69)) {
        simple = false;
        i++;
        if (i < to && ((d = b[i]) === 43 || d === MINUS)) i++;
        const es = i;
        while (i < to && (d = b[i]) >= ZERO && d <= NINE) i++;
        if (i === es) return false;
      }
      if (field !== F_OTHER) {
        kind[field] = K_NUMBER;
        // The running value is exact while it stays a safe integer (each step is below the
        // result); otherwise let the engine convert (the same conversion JSON.parse uses).
        num[field] = simple && int <= 9007199254740991 ? (neg ? -int : int) : Number(b.toString('latin1', nStart, i));
      }
    } else if (c === 116 /* t */ && i + 4 <= to && b[i + 1] === 114 && b[i + 2] === 117 && b[i + 3] === 101) {
      kind[field] = K_TRUE;
      i += 4;
    } else if (c === 102 /* f */ && i + 5 <= to && b[i + 1] === 97 && b[i + 2] === 108 && b[i + 3] === 115 && b[i + 4] === 101) {
      kind[field] = K_FALSE;
      i += 5;
    } else if (c === 110 /* n */ && i + 4 <= to && b[i + 1] === 117 && b[i + 2] === 108 && b[i + 3] === 108) {
      kind[field] = K_NULL;
      i += 4;
    } else {
      return false; // nested object or array, or not JSON
    }

    // Separator.
    let sep = i < to ? b[i] : -1;
    if (isWs(sep)) {
      while (i < to && isWs(b[i])) i++;
      sep = i < to ? b[i] : -1;
    }
    i++;
    if (sep === COMMA) {
      if (i < to && isWs(b[i])) while (i < to && isWs(b[i])) i++;
      continue;
    }
    return sep === CLOSE && trailing(b, i, to);
  }
}

function trailing(b: Buffer, i: number, to: number): boolean {
  while (i < to && isWs(b[i])) i++;
  return i === to;
}

/** Enumerated values (type, outcome, phase) as shared constants, without a new string. */
function knownValue(b: Buffer, a: number, e: number): string {
  switch (e - a) {
    case 2:
      if (b[a] === 111 && b[a + 1] === 107) return 'ok';
      break;
    case 3:
      if (b[a] === 97 && b[a + 1] === 99 && b[a + 2] === 107) return 'ack';
      if (b[a] === 101 && b[a + 1] === 110 && b[a + 2] === 100) return 'end';
      break;
    case 4:
      if (b[a] === 115 && b[a + 1] === 101 && b[a + 2] === 110 && b[a + 3] === 100) return 'send';
      break;
    case 5:
      if (same(b, a, 'error')) return 'error';
      if (same(b, a, 'start')) return 'start';
      if (same(b, a, 'fault')) return 'fault';
      break;
    case 7:
      if (same(b, a, 'process')) return 'process';
      break;
  }
  return b.toString('latin1', a, e);
}

function same(b: Buffer, a: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) if (b[a + k] !== word.charCodeAt(k)) return false;
  return true;
}

/**
 * The field a member name denotes (F_OTHER for any other name): dispatch on length and
 * first byte, then compare the rest inline (this runs for every member of every line).
 */
function fieldId(b: Buffer, a: number, n: number): number {
  const c = b[a];
  switch (n) {
    case 2:
      if (c === 97 /* at */) return b[a + 1] === 116 ? F_AT : F_OTHER;
      if (c === 111 /* ok */) return b[a + 1] === 107 ? F_OK : F_OTHER;
      return F_OTHER;
    case 3:
      if (c === 107 /* key */) return b[a + 1] === 101 && b[a + 2] === 121 ? F_KEY : F_OTHER;
      if (c === 115 /* seq */) return b[a + 1] === 101 && b[a + 2] === 113 ? F_SEQ : F_OTHER;
      if (c === 101 /* end */) return b[a + 1] === 110 && b[a + 2] === 100 ? F_END : F_OTHER;
      return F_OTHER;
    case 4:
      if (c === 116 /* type */) return b[a + 1] === 121 && b[a + 2] === 112 && b[a + 3] === 101 ? F_TYPE : F_OTHER;
      if (c === 108 /* lane */) return b[a + 1] === 97 && b[a + 2] === 110 && b[a + 3] === 101 ? F_LANE : F_OTHER;
      if (c === 110 /* name */) return b[a + 1] === 97 && b[a + 2] === 109 && b[a + 3] === 101 ? F_NAME : F_OTHER;
      if (c === 107 /* kind */) return b[a + 1] === 105 && b[a + 2] === 110 && b[a + 3] === 100 ? F_KIND : F_OTHER;
      return F_OTHER;
    case 5:
      if (c === 115 /* start */) return b[a + 1] === 116 && b[a + 2] === 97 && b[a + 3] === 114 && b[a + 4] === 116 ? F_START : F_OTHER;
      if (c === 112 /* phase */) return b[a + 1] === 104 && b[a + 2] === 97 && b[a + 3] === 115 && b[a + 4] === 101 ? F_PHASE : F_OTHER;
      return F_OTHER;
    case 6:
      if (c === 111 /* offset */) return b[a + 1] === 102 && b[a + 2] === 102 && b[a + 3] === 115 && b[a + 4] === 101 && b[a + 5] === 116 ? F_OFFSET : F_OTHER;
      return F_OTHER;
    case 7:
      if (c === 111 /* outcome */) return b[a + 1] === 117 && b[a + 2] === 116 && b[a + 3] === 99 && b[a + 4] === 111 && b[a + 5] === 109 && b[a + 6] === 101 ? F_OUTCOME : F_OTHER;
      return F_OTHER;
    case 8:
      if (c === 112 /* producer */) return b[a + 1] === 114 && b[a + 2] === 111 && b[a + 3] === 100 && b[a + 4] === 117 && b[a + 5] === 99 && b[a + 6] === 101 && b[a + 7] === 114 ? F_PRODUCER : F_OTHER;
      if (c === 99 /* consumer */) return b[a + 1] === 111 && b[a + 2] === 110 && b[a + 3] === 115 && b[a + 4] === 117 && b[a + 5] === 109 && b[a + 6] === 101 && b[a + 7] === 114 ? F_CONSUMER : F_OTHER;
      return F_OTHER;
    default:
      return F_OTHER;
  }
}
