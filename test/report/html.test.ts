/** Escaping: nothing in a result can end the data blob's <script> element or inject markup. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { esc, jsonForScript, scriptText } from '../../harness/report/html.ts';
import { decadeTicks, durationTicks } from '../../harness/report/assets/units.js';
import { formatDuration, relativeTimes } from '../../harness/report/format.ts';

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

test('formatDuration writes µs in the unit that fits, three significant figures, no leading zero', () => {
  assert.equal(formatDuration(344), '344 µs');
  assert.equal(formatDuration(2985), '2.99 ms');
  assert.equal(formatDuration(50_123), '50.1 ms');
  assert.equal(formatDuration(1_443_839), '1.44 s');
  assert.equal(formatDuration(999_600), '1.00 s', 'rounding up crosses into the next unit');
  assert.equal(formatDuration(0), '0 µs');
  assert.equal(formatDuration(null), '—');
});

test('durationTicks: each tick in its own unit, the decimals its step needs; decadeTicks labels powers of ten only', () => {
  assert.deepEqual(durationTicks([0, 500_000, 1_000_000, 1_500_000], 500_000), ['0 ms', '500 ms', '1 s', '1.5 s']);
  assert.deepEqual(durationTicks([10_000_000, 10_250_000], 250_000), ['10 s', '10.25 s']);
  assert.deepEqual(decadeTicks([1, 10, 100, 1000, 2000, 10_000]), ['1 µs', '10 µs', '100 µs', '1 ms', '', '10 ms']);
});

test('relativeTimes rewrites run-clock times only', () => {
  const origin = 1_796_004_002_000_000;
  assert.equal(relativeTimes(`seq 10 first landed at ${origin + 8_004_588} after seq 11`, origin, origin - 1e9, origin + 1e9), 'seq 10 first landed at +8.005 s after seq 11');
});
