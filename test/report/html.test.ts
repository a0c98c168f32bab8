/** Escaping: nothing in a result can end the data blob's <script> element or inject markup. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { esc, jsonForScript, scriptText } from '../../harness/report/html.ts';
import { formatMs, relativeTimes } from '../../harness/report/format.ts';

test('jsonForScript round-trips and never contains a tag opener', () => {
  const value = { a: '</script><script>alert(1)</script>', b: '<!-- x -->', c: 'a\u2028b\u2029c & d' };
  const text = jsonForScript(value);
  assert.ok(!/<\/?script/i.test(text) && !text.includes('<!--') && !text.includes('<'));
  assert.deepEqual(JSON.parse(text), value);
});

test('esc escapes markup and quotes', () => {
  assert.equal(esc(`<a href="x" onclick='y'>&</a>`), '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  assert.equal(esc(null), '');
});

test('scriptText keeps an inline script from being closed early', () => {
  assert.ok(!/<\/script/i.test(scriptText('var s = "</SCRIPT>"; // <!-- x')));
});

test('formatMs writes µs as ms with three significant figures, whole ms above 100', () => {
  assert.equal(formatMs(344), '0.344 ms');
  assert.equal(formatMs(2985), '2.99 ms');
  assert.equal(formatMs(50_123), '50.1 ms');
  assert.equal(formatMs(1_443_839), '1,444 ms');
  assert.equal(formatMs(null), '—');
});

test('relativeTimes rewrites run-clock times only', () => {
  const origin = 1_796_004_002_000_000;
  assert.equal(relativeTimes(`seq 10 first landed at ${origin + 8_004_588} after seq 11`, origin, origin - 1e9, origin + 1e9), 'seq 10 first landed at +8.005 s after seq 11');
});
