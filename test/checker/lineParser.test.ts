/** The fast line parser must agree with JSON.parse on every line it accepts, and reject what JSON.parse rejects. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Fields, K_NUMBER, K_STRING, parseFast } from '../../harness/checker/lineParser.ts';
import { PARSER_FIELDS, forEachExpectedField, parseJson } from './helpers.ts';
import { Checker, HistoryLineError } from '../../harness/checker/checker.ts';

function assertSameAsJson(line: string): void {
  const fields = new Fields();
  const { parsed, threw } = parseJson(line);
  const fast = parseFast(line, 0, line.length, fields);
  if (threw) {
    assert.equal(fast, false, `fast path accepted invalid JSON: ${line}`);
    return;
  }
  if (!fast) return; // the fallback handles it
  assert.ok(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed), `fast path accepted a non-object: ${line}`);
  // Every field, whatever the type (the fast path reads all of them).
  forEachExpectedField(parsed as Record<string, unknown>, (f, name, kind, v) => {
    assert.equal(fields.kind[f], kind, `${name}: kind in ${line}`);
    if (kind === K_NUMBER) assert.ok(Object.is(fields.num[f], v), `${name}: fast ${fields.num[f]} vs JSON ${String(v)} in ${line}`);
    if (kind === K_STRING) assert.equal(fields.str[f], v, `${name} in ${line}`);
  });
}

test('fast path: hand-picked lines', () => {
  const lines = [
    '{"type":"send","key":"k17","producer":"orders","seq":1,"at":1000}',
    ' { "type" : "ack" , "key":"k","producer":"p","seq":1,"at":1900,"ok":true,"lane":"orders-2","offset":41 } ',
    '{"type":"process","key":null,"seq":null,"start":1,"end":2.5e3,"outcome":"ok"}',
    '{"type":"process","key":"a\\"b","start":1}',
    '{"type":"process","key":"ключ🙂","start":-0}',
    '{"type":"send","seq":12345678901234567890,"at":1e400}',
    '{"type":"send","seq":123456789012345,"at":1234567890123456}',
    '{"type":"send","seq":1,"seq":2}',
    '{"type":"x","meta":{"a":[1,2,{"b":null}]}}',
    '{"type":"x","n":-1.5E-3,"t":true,"f":false}',
    '{}',
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
    '{"type":"send"',
    '{"__proto__":{"x":1},"type":"send"}',
  ];
  for (const l of lines) assertSameAsJson(l);
});

test('fast path: random JSON objects with the checker\'s field names', () => {
  const name = fc.oneof(fc.constantFrom(...PARSER_FIELDS), fc.string({ maxLength: 6 }));
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: 'binary', maxLength: 8 }),
  );
  const obj = fc.dictionary(name, value, { maxKeys: 8 });
  fc.assert(
    fc.property(obj, fc.constantFrom(0, 1), (o, indent) => {
      assertSameAsJson(indent ? JSON.stringify(o, null, 1).replace(/\n/g, ' ') : JSON.stringify(o));
    }),
    { numRuns: 3000 },
  );
});

test('fast path: long integers convert exactly as JSON.parse does', () => {
  const digits = fc.string({ unit: fc.constantFrom('0', '1', '2', '3', '4', '5', '6', '7', '8', '9'), minLength: 14, maxLength: 22 });
  fc.assert(
    fc.property(digits, fc.boolean(), (d, neg) => {
      const n = (neg ? '-' : '') + d.replace(/^0+(?=.)/, '');
      assertSameAsJson(`{"type":"send","at":${n},"seq":${n}}`);
    }),
    { numRuns: 3000 },
  );
});

test('fast path: damaged lines are rejected whenever JSON.parse rejects them', () => {
  const line = fc.constantFrom(
    '{"type":"send","key":"k17","producer":"orders","seq":1,"at":1000}',
    '{"type":"process","key":"k","producer":"p","seq":3,"consumer":"c1","lane":"l","offset":41,"received":2400,"start":2500,"end":2700,"outcome":"ok"}',
    '{"type":"ack","key":"k","producer":"p","seq":1,"at":-1.25e2,"ok":null}',
  );
  const edit = fc.record({ at: fc.nat(), del: fc.nat({ max: 3 }), ins: fc.string({ maxLength: 2, unit: fc.constantFrom('"', ',', ':', '{', '}', '[', '0', '-', '.', 'e', ' ', '\\', 'x') }) });
  fc.assert(
    fc.property(line, edit, (l, e) => {
      const at = e.at % (l.length + 1);
      assertSameAsJson(l.slice(0, at) + e.ins + l.slice(at + e.del));
    }),
    { numRuns: 5000 },
  );
});

function reasonOf(line: string): string {
  const c = new Checker();
  try {
    c.addLine('');
    c.addLine(line);
  } catch (err) {
    assert.ok(err instanceof HistoryLineError);
    assert.equal(err.line, 2);
    assert.equal(err.message, `line 2: ${err.reason}`);
    return err.reason;
  }
  return 'accepted';
}

test('bad lines name the line and the reason', () => {
  assert.match(reasonOf('{"type":"send",'), /^invalid JSON/);
  assert.equal(reasonOf('[1]'), 'not a JSON object');
  assert.equal(reasonOf('{"key":"k"}'), 'missing "type"');
  assert.equal(reasonOf('{"type":3}'), '"type" must be a string');
  assert.equal(reasonOf('{"type":"send","key":"k","producer":"p","at":1}'), '"seq" must be an integer from 1 to 2147483647');
  assert.equal(reasonOf('{"type":"send","key":"k","producer":"p","seq":0,"at":1}'), '"seq" must be an integer from 1 to 2147483647');
  assert.equal(reasonOf('{"type":"send","key":7,"producer":"p","seq":1,"at":1}'), '"key" must be a string');
  assert.equal(reasonOf('{"type":"send","key":"k","producer":"p","seq":1}'), '"at" must be a finite number');
  assert.equal(reasonOf('{"type":"ack","key":"k","producer":"p","seq":1,"at":1,"ok":"yes"}'), '"ok" must be true, false or null');
  assert.equal(reasonOf('{"type":"process","key":"k","producer":"p","seq":1,"start":5,"end":4}'), '"end" is before "start"');
  assert.equal(reasonOf('{"type":"process","key":"k","producer":"p","seq":1,"end":4}'), '"start" must be a finite number');
  assert.equal(reasonOf('{"type":"process","key":"k","producer":"p","seq":"1","start":1}'), '"seq" must be a number or null');
  assert.equal(reasonOf('{"type":"process","key":"k","producer":"p","seq":1,"start":1,"outcome":"done"}'), '"outcome" must be "ok", "error" or null');
  assert.equal(reasonOf('{"type":"process","key":"k","producer":"p","seq":1,"start":1,"offset":"x"}'), '"offset" must be a number');
  assert.equal(reasonOf('{"type":"fault","name":"f","phase":"middle","at":1}'), '"phase" must be "start" or "end"');
  assert.equal(reasonOf('{"type":"fault","name":"","phase":"start","at":1}'), '"name" must be a non-empty string');
  // Accepted: other types with anything, extra fields, escapes, CRLF, offsets as digit strings.
  assert.equal(reasonOf('{"type":"rebalance","at":"whenever"}'), 'accepted');
  assert.equal(reasonOf('{"type":"send","key":"k\\u0031","producer":"p","seq":1,"at":1,"extra":[1]}\r'), 'accepted');
  assert.equal(reasonOf('{"type":"process","key":"k","producer":"p","seq":1,"start":1,"offset":"41"}'), 'accepted');
});

test('lenient mode counts bad lines, keeps the first samples, and skips blank lines and a BOM', () => {
  const c = new Checker({ lenient: true });
  c.write('\uFEFF{"type":"send","key":"k","producer":"p","seq":1,"at":1}\n\n   \nnot json\n{"type":"send"}\n{"type":"ack","key":"k","producer":"p","seq":1,"at":2,"ok":true}');
  const r = c.finish();
  assert.equal(r.input.lines, 6);
  assert.equal(r.input.events, 2);
  assert.equal(r.input.badLines, 2);
  assert.deepEqual(r.input.badLineSamples.map((b) => b.line), [4, 5]);
  assert.equal(r.anomalies.lost.count, 1);
});

test('add() names the event by its position', () => {
  const c = new Checker();
  c.add({ type: 'mark', at: 1 });
  assert.throws(() => c.add({ type: 'send', key: 'k', producer: 'p', seq: 1.5, at: 1 }), /^HistoryLineError: event 2: "seq" must be an integer/);
  assert.throws(() => c.add(null), /event 3: not a JSON object/);
});

test('events added after finish are refused', () => {
  const c = new Checker();
  c.finish();
  assert.throws(() => c.add({ type: 'send' }), /after finish/);
});
