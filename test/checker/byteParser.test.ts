/**
 * The byte-level line parser must agree with JSON.parse on every line it accepts (fields,
 * numbers, strings) and reject what JSON.parse rejects; and a checker fed bytes, in any
 * chunking, must give exactly what the string path gives on the decoded text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseBytes } from '../../harness/checker/byteParser.ts';
import { Fields, K_NUMBER, K_STRING, SRC_BYTES } from '../../harness/checker/lineParser.ts';
import { PARSER_FIELDS, forEachExpectedField, parseJson } from './helpers.ts';
import { Checker, checkText, type CheckOutcome } from '../../harness/checker/checker.ts';
import { checkFile } from '../../harness/checker/readFile.ts';
import { Interner } from '../../harness/checker/interner.ts';

/** Parses `bytes` placed inside a larger buffer (so that bounds matter) and compares with JSON.parse. */
function assertBytesSameAsJson(bytes: Buffer): void {
  const line = bytes.toString('utf8');
  const { parsed, threw } = parseJson(line);
  const buf = Buffer.concat([Buffer.from('{"x":"'), bytes, Buffer.from('"}\n')]);
  const from = 6;
  const to = from + bytes.length;
  const fields = new Fields();
  const fast = parseBytes(buf, from, to, fields);
  const show = JSON.stringify(line);
  if (threw) {
    assert.equal(fast, false, `byte path accepted invalid JSON: ${show}`);
    return;
  }
  if (!fast) return; // the fallback handles it
  assert.ok(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed), `byte path accepted a non-object: ${show}`);
  forEachExpectedField(parsed as Record<string, unknown>, (f, name, kind, v) => {
    assert.equal(fields.kind[f], kind, `${name}: kind in ${show}`);
    if (kind === K_NUMBER) assert.ok(Object.is(fields.num[f], v), `${name}: bytes ${fields.num[f]} vs JSON ${String(v)} in ${show}`);
    if (kind === K_STRING) {
      if (fields.src[f] === SRC_BYTES) {
        const a = fields.from[f];
        const b = fields.to[f];
        assert.ok(from <= a && a <= b && b <= to, `${name}: range inside the line`);
        for (let k = a; k < b; k++) assert.ok(buf[k] < 128, `${name}: byte range must be ASCII`);
        assert.equal(buf.toString('latin1', a, b), v, `${name} in ${show}`);
      } else {
        assert.equal(fields.str[f], v, `${name} in ${show}`);
      }
    }
  });
}

const HAND_PICKED = [
  '{"type":"send","key":"k17","producer":"orders","seq":1,"at":1000}',
  ' { "type" : "ack" , "key":"k","producer":"p","seq":1,"at":1900,"ok":true,"lane":"orders-2","offset":41 } ',
  '{"type":"process","key":null,"seq":null,"start":1,"end":2.5e3,"outcome":"ok"}',
  '{"type":"process","key":"a\\"b","start":1}',
  '{"type":"process","key":"k\\u0031","start":1}',
  '{"type":"process","key":"ключ🙂","producer":"é","consumer":"c\u2028","lane":"日本","start":-0}',
  '{"type":"send","seq":12345678901234567890,"at":1e400}',
  '{"type":"send","seq":123456789012345,"at":1234567890123456}',
  '{"type":"send","seq":9007199254740991,"at":9007199254740992,"end":9007199254740993,"start":-9007199254740993}',
  '{"type":"send","seq":1E3,"at":-0.0,"start":1.5,"end":-1e-7,"offset":0}',
  '{"type":"send","seq":1,"seq":2,"key":"a","key":7,"producer":3,"producer":"p"}',
  '{"type":"x","meta":{"a":[1,2,{"b":null}]}}',
  '{"type":"x","n":-1.5E-3,"t":true,"f":false}',
  '{"type":"process","extra":[1,{"key":"k"}],"key":"k"}',
  '{}',
  ' {  } ',
  '[1,2]',
  '"send"',
  '{"type":"send",}',
  '{"type":"send" "key":"k"}',
  '{"type":01}',
  '{"type":1.}',
  '{"type":-}',
  '{"type":"send"}x',
  '{"type":"a\tb"}',
  '{"type":"send","at":.5}',
  '{"type":tru}',
  '{"type":nul}',
  '{"type":fals}',
  '{"type":"send"',
  '{"type":"send",',
  '{"type"',
  '{"type":',
  '{"ty\\u0070e":"send"}',
  '{"__proto__":{"x":1},"type":"send"}',
  '{"type":"send","key":"012345678901234567890123456789"}',
  '\uFEFF{"type":"send"}',
  '{"type":"send"}\r',
  '\r',
  '',
  '   ',
];

test('byte path: hand-picked lines', () => {
  for (const l of HAND_PICKED) assertBytesSameAsJson(Buffer.from(l));
});

test('byte path: invalid UTF-8 inside and outside strings', () => {
  const bad = [[0xe2, 0x82], [0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x99], [0x80]];
  for (const b of bad) {
    const seq = Buffer.from(b);
    assertBytesSameAsJson(Buffer.concat([Buffer.from('{"type":"send","key":"a'), seq, Buffer.from('b","producer":"p"}')]));
    assertBytesSameAsJson(Buffer.concat([Buffer.from('{"type":"send","key":"a'), seq, Buffer.from('"}')]));
    assertBytesSameAsJson(Buffer.concat([Buffer.from('{"type":"send",'), seq, Buffer.from('"key":"a"}')]));
    assertBytesSameAsJson(Buffer.concat([Buffer.from('{"type":"se'), seq, Buffer.from('nd"}')]));
  }
});

test('byte path: random JSON objects with the checker\'s field names', () => {
  const name = fc.oneof(fc.constantFrom(...PARSER_FIELDS), fc.string({ maxLength: 6 }));
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: 'binary', maxLength: 8 }),
    fc.string({ unit: fc.constantFrom('a', 'k', '-', '1', 'é', '🙂', '"', '\\', '\t'), maxLength: 30 }),
  );
  const obj = fc.dictionary(name, value, { maxKeys: 8 });
  fc.assert(
    fc.property(obj, fc.constantFrom(0, 1), (o, indent) => {
      assertBytesSameAsJson(Buffer.from(indent ? JSON.stringify(o, null, 1).replace(/\n/g, ' ') : JSON.stringify(o)));
    }),
    { numRuns: 3000 },
  );
});

test('byte path: numbers in every JSON form convert exactly as JSON.parse does', () => {
  const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom('0', '1', '2', '3', '4', '5', '6', '7', '8', '9'), minLength: min, maxLength: max });
  const num = fc
    .record({ neg: fc.boolean(), int: digits(1, 22), frac: fc.option(digits(1, 5)), exp: fc.option(fc.record({ e: fc.constantFrom('e', 'E'), sign: fc.constantFrom('', '+', '-'), d: digits(1, 3) })) })
    .map(({ neg, int, frac, exp }) => `${neg ? '-' : ''}${int}${frac !== null ? '.' + frac : ''}${exp !== null ? exp.e + exp.sign + exp.d : ''}`);
  fc.assert(
    fc.property(num, (n) => assertBytesSameAsJson(Buffer.from(`{"type":"send","at":${n},"seq":${n},"start":${n}}`))),
    { numRuns: 3000 },
  );
});

test('byte path: damaged lines are rejected whenever JSON.parse rejects them', () => {
  const line = fc.constantFrom(
    '{"type":"send","key":"k17","producer":"orders","seq":1,"at":1000}',
    '{"type":"process","key":"k","producer":"p","seq":3,"consumer":"c1","lane":"l","offset":41,"received":2400,"start":2500,"end":2700,"outcome":"ok"}',
    '{"type":"ack","key":"k","producer":"p","seq":1,"at":-1.25e2,"ok":null}',
    '{"type":"fault","name":"stall","kind":"pause","phase":"start","at":5}',
  );
  const edit = fc.record({
    at: fc.nat(),
    del: fc.nat({ max: 3 }),
    ins: fc.string({ maxLength: 2, unit: fc.constantFrom('"', ',', ':', '{', '}', '[', ']', '0', '-', '+', '.', 'e', ' ', '\\', 'x', 't', 'n', '\u0001', 'é') }),
  });
  fc.assert(
    fc.property(line, edit, (l, e) => {
      const at = e.at % (l.length + 1);
      assertBytesSameAsJson(Buffer.from(l.slice(0, at) + e.ins + l.slice(at + e.del)));
    }),
    { numRuns: 5000 },
  );
});

// ---- The checker in byte mode --------------------------------------------------------------

/** Everything a check reports, as one string. */
function fingerprint(o: CheckOutcome): string {
  return JSON.stringify({ anomalies: o.anomalies, input: o.input, faults: o.faults, occurrences: o.occurrences.list() });
}

/** The outcome (or the error message) of a checker fed `chunks`. */
function run(chunks: (string | Uint8Array)[], lenient: boolean): string {
  const c = new Checker({ lenient });
  try {
    for (const ch of chunks) c.write(ch);
    c.end();
    return fingerprint(c.finish());
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

/** The string path on the decoded text: the reference. */
function reference(bytes: Buffer, lenient: boolean): string {
  try {
    return fingerprint(checkText(bytes.toString('utf8'), { lenient }));
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

const EDGE_HISTORY = Buffer.concat([
  Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from(
    [
      '{"type":"send","key":"k1","producer":"p","seq":1,"at":1}',
      '',
      '   \t ',
      '{"type":"ack","key":"k\\u0031","producer":"p","seq":1,"at":2,"ok":true}\r',
      '{"type":"send","key":"ключ🙂","producer":"p","seq":1,"at":3}',
      '{"type":"process","key":"ключ🙂","producer":"p","seq":1,"consumer":"c","lane":"日本","offset":"7","start":4,"end":5,"outcome":"ok"}',
      '{"type":"process","key":"k1","producer":"p","seq":1,"consumer":"c","lane":1,"offset":1e0,"start":1e1,"end":1.2e1,"outcome":"ok","meta":{"a":[1,{"b":"c"}]}}',
      '{"type":"process","key":"k1","producer":"p","seq":1,"seq":1,"consumer":"c","lane":"l2","start":-0,"end":20,"outcome":"ok"}',
      '{"type":"process","key":"k1","producer":"p","seq":2,"consumer":"c","lane":"l2","start":6,"end":7,"outcome":"error"}',
      '{"type":"process","key":null,"producer":"p","seq":3,"start":8}',
      '{"type":"send","key":"a-very-long-key-of-more-than-twenty-characters","producer":"p","seq":1,"at":1234567890123456}',
      '{"type":"ack","key":"a-very-long-key-of-more-than-twenty-characters","producer":"p","seq":1,"at":12345678901234567890,"ok":null}',
      '{"type":"fault","name":"stall","kind":"pause","phase":"start","at":3}',
      '{"type":"fault","name":"stall","phase":"end","at":9}',
      'not json',
      '{"type":"send","key":"k","producer":"p","seq":0,"at":1}',
      '[1,2]',
      '{"type":"process","key":"k1","producer":"p","seq":1,"start":1,"offset":"x"}',
      '{"type":"rebalance","at":"whenever"}',
    ].join('\n'),
  ),
  Buffer.from('\n{"type":"send","key":"bad'),
  Buffer.from([0xe2, 0x82]),
  Buffer.from('","producer":"p","seq":5,"at":1}\n{"type":"send","key":"x","producer":"p","seq":1,"at":1}'), // no final newline
]);

test('byte mode gives the string path\'s outcome, split at every byte', () => {
  for (const lenient of [true, false]) {
    const want = reference(EDGE_HISTORY, lenient);
    assert.equal(run([EDGE_HISTORY], lenient), want, 'one chunk');
    for (let k = 0; k <= EDGE_HISTORY.length; k++) {
      const got = run([EDGE_HISTORY.subarray(0, k), EDGE_HISTORY.subarray(k)], lenient);
      assert.equal(got, want, `split at ${k} (lenient: ${lenient})`);
    }
  }
  assert.match(reference(EDGE_HISTORY, false), /^error: line 15: invalid JSON/);
});

test('byte mode: random chunkings, a reused buffer, Uint8Array chunks, and text between bytes', () => {
  const want = reference(EDGE_HISTORY, true);
  fc.assert(
    fc.property(fc.uniqueArray(fc.integer({ min: 0, max: EDGE_HISTORY.length }), { maxLength: 12 }), (cuts) => {
      const at = [0, ...cuts.sort((a, b) => a - b), EDGE_HISTORY.length];
      // One reused buffer, overwritten after every write, as readFile does.
      const scratch = Buffer.alloc(EDGE_HISTORY.length);
      const c = new Checker({ lenient: true });
      for (let i = 0; i + 1 < at.length; i++) {
        const n = EDGE_HISTORY.copy(scratch, 0, at[i], at[i + 1]);
        c.write(i % 2 ? new Uint8Array(scratch.buffer, scratch.byteOffset, n) : scratch.subarray(0, n));
        scratch.fill(0x41);
      }
      c.end();
      assert.equal(fingerprint(c.finish()), want);
    }),
    { numRuns: 300 },
  );
  // Text after bytes, then bytes again (at line and character boundaries).
  const text = EDGE_HISTORY.toString('utf8');
  const cut1 = text.indexOf('ключ') + 2;
  const cut2 = text.indexOf('stall');
  assert.equal(run([Buffer.from(text.slice(0, cut1)), text.slice(cut1, cut2), Buffer.from(text.slice(cut2))], true), want);
});

test('checkFile reads a file larger than its read buffer, a line crossing the boundary', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-bytes-'));
  try {
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < 9 << 20; i++) {
      const key = i % 7 === 0 ? `ключ-${i % 1000}` : `key-${i % 50000}`;
      const l = i % 3 === 0
        ? `{"type":"send","key":"${key}","producer":"p${i % 3}","seq":${1 + Math.floor(i / 50000)},"at":${1700000000000000 + i}}`
        : `{"type":"process","key":"${key}","producer":"p${i % 3}","seq":${1 + Math.floor(i / 50000)},"consumer":"c${i % 5}","lane":"l${i % 9}","offset":${i},"start":${i},"end":${i + (i % 4)},"outcome":"ok"}`;
      lines.push(l);
      size += Buffer.byteLength(l) + 1;
    }
    const text = lines.join('\n') + '\n';
    const file = join(dir, 'h.jsonl');
    writeFileSync(file, text);
    assert.equal(fingerprint(await checkFile(file)), fingerprint(checkText(text)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('interning: strings and bytes of one text get one id, ASCII or not, short or long', () => {
  const text = fc.string({ unit: fc.constantFrom('a', 'b', '-', '0', '1', 'é', '🙂'), maxLength: 40 });
  fc.assert(
    fc.property(fc.array(fc.tuple(text, fc.boolean()), { maxLength: 200 }), (items) => {
      const table = new Interner();
      const ids = new Map<string, number>();
      for (const [s, asBytes] of items) {
        const ascii = !/[^\x00-\x7f]/.test(s);
        const id = asBytes && ascii ? table.idBytes(Buffer.from('xx' + s + 'yy'), 2, 2 + s.length) : table.id(s);
        if (!ids.has(s)) ids.set(s, ids.size);
        assert.equal(id, ids.get(s), `id of ${JSON.stringify(s)}`);
        assert.equal(table.value(id), s);
      }
      assert.equal(table.size, ids.size);
    }),
    { numRuns: 500 },
  );
});
