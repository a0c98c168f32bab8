/**
 * docs/anomalies.md defines every anomaly type the checker reports. The rules it is held to:
 *
 * - Its `## ` headings are, in this order: the introduction's own sections (INTRO below), one
 *   section per anomaly type named exactly as ANOMALY_TYPES spells it and in that order, then
 *   `## Beside the anomaly types` last. Any other `## ` heading names a type that does not exist.
 *   The types come from harness/checker/anomaly-types.ts, so a type added there fails this test
 *   until its section is written.
 * - Each type's section has its four parts, each a bold label at the start of a line, once, in
 *   this order: Definition, A tiny history (with a code block or a table), What usually causes
 *   it, Defences.
 * - Its Definition says "Default expectation: `0`." or "`any`", as ANOMALIES[type].expectedByDefault.
 * - Every nightly scenario it names in backticks exists; it cites no seeds or issue numbers and
 *   links outside the project only to vendors' documentation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANOMALIES, ANOMALY_TYPES } from '../../harness/checker/anomaly-types.ts';
import { ROOT } from '../runner/helpers.ts';

const DOC = 'docs/anomalies.md';
/** The introduction's sections, before the first type. */
const INTRO = ['Where they appear', 'How expectations judge them', 'Times from several hosts: uncertain anomalies', 'Reading the sections'];
/** The closing section: the expectations that are not anomaly types (wrong-state, duplicate-versions). */
const CLOSING = 'Beside the anomaly types';
const LABELS = ['**Definition.**', '**A tiny history.**', '**What usually causes it.**', '**Defences.**'];
/** "Default expectation: `0`." (the words may wrap across lines). */
const DEFAULT_STATEMENT = /Default\s+expectation:\s+`([^`]*)`/g;
/** Hosts of public vendor documentation that the page may link to. */
const VENDOR_HOSTS = ['kafka.apache.org', 'www.rabbitmq.com', 'docs.aws.amazon.com', 'learn.microsoft.com', 'cloud.google.com'];

type Definitions = Readonly<Record<string, { readonly expectedByDefault: string }>>;

interface Section {
  heading: string;
  body: string;
}

/** The `## ` sections of a Markdown text, headings inside fenced code blocks ignored. */
function sections(text: string): Section[] {
  const out: Section[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (!fenced && line.startsWith('## ')) out.push({ heading: line.slice(3).trim(), body: '' });
    else if (out.length > 0) out[out.length - 1].body += `${line}\n`;
  }
  return out;
}

/** The lines outside fenced code blocks. */
function prose(body: string): string[] {
  let fenced = false;
  return body.split('\n').filter((line) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** Everything wrong with the page, for the given anomaly definitions (the real ones, or a test's). */
function problems(text: string, definitions: Definitions): string[] {
  const types = Object.keys(definitions);
  const found = sections(text);
  const headings = found.map((s) => s.heading);
  const out: string[] = [];

  for (const t of types) if (!headings.includes(t)) out.push(`no section "## ${t}" for anomaly type ${t}`);
  for (const h of headings) {
    if (!types.includes(h) && !INTRO.includes(h) && h !== CLOSING) out.push(`section "## ${h}" names no anomaly type (and is none of the page's own sections)`);
  }
  const expected = [...INTRO, ...types, CLOSING];
  if (out.length === 0 && JSON.stringify(headings) !== JSON.stringify(expected)) {
    out.push(`sections out of order or repeated: ${headings.join(' | ')}; expected ${expected.join(' | ')}`);
  }

  for (const { heading: t, body } of found) {
    if (!types.includes(t)) continue;
    const lines = prose(body);
    const at = LABELS.map((label) => lines.findIndex((l) => l.startsWith(label)));
    LABELS.forEach((label, i) => {
      const n = lines.filter((l) => l.startsWith(label)).length;
      if (n !== 1) out.push(`${t}: "${label}" starts ${n} lines, expected 1`);
      else if (i > 0 && at[i - 1] >= 0 && at[i] < at[i - 1]) out.push(`${t}: "${label}" comes before "${LABELS[i - 1]}"`);
    });
    if (at.some((i) => i < 0) || at.some((i, k) => k > 0 && i < at[k - 1])) continue;

    // Each part runs from its label to the next; the whole body is split the same way, so the
    // history part sees its code block.
    const raw = body.split('\n');
    const rawAt = LABELS.map((label) => raw.findIndex((l) => l.startsWith(label)));
    const part = (i: number) => raw.slice(rawAt[i], i + 1 < LABELS.length ? rawAt[i + 1] : raw.length).join('\n');
    for (let i = 0; i < LABELS.length; i++) {
      const words = part(i).slice(LABELS[i].length).trim();
      if (words.length < 40) out.push(`${t}: "${LABELS[i]}" has next to nothing after it`);
    }
    if (!/^```/m.test(part(1)) && !/^\|/m.test(part(1))) out.push(`${t}: the tiny history has no code block or table`);

    const stated = [...part(0).matchAll(DEFAULT_STATEMENT)].map((m) => m[1]);
    const elsewhere = [...body.matchAll(DEFAULT_STATEMENT)].length - stated.length;
    if (stated.length !== 1) out.push(`${t}: its Definition states ${stated.length} defaults ("Default expectation: \`...\`"), expected 1`);
    else if (stated[0] !== definitions[t].expectedByDefault) {
      out.push(`${t}: the page says its default is \`${stated[0]}\`, the checker expects \`${definitions[t].expectedByDefault}\``);
    }
    if (elsewhere > 0) out.push(`${t}: a default is stated outside its Definition`);
  }
  return out;
}

const text = readFileSync(join(ROOT, DOC), 'utf8');

test('docs/anomalies.md: one section per anomaly type, in order, with its four parts and its default', () => {
  assert.deepEqual(problems(text, ANOMALIES), []);
  // The parse itself: it found every type's section and every default.
  const found = sections(text).map((s) => s.heading);
  assert.deepEqual(found.filter((h) => (ANOMALY_TYPES as readonly string[]).includes(h)), [...ANOMALY_TYPES]);
  assert.equal([...text.matchAll(DEFAULT_STATEMENT)].length, ANOMALY_TYPES.length);
});

test('docs/anomalies.md: the check fails for a new type, a renamed heading, a wrong default or a missing part', () => {
  // A type added to the checker (simulated: the real definitions plus one) has no section yet.
  const added = problems(text, { ...ANOMALIES, teleport: { expectedByDefault: '0' } });
  assert.ok(added.some((p) => p.includes('"## teleport"')), added.join('\n'));

  // A heading renamed: its type has no section, and the heading names no type.
  const renamed = problems(text.replace('\n## reorder\n', '\n## reordered\n'), ANOMALIES);
  assert.ok(renamed.some((p) => p.includes('"## reorder"')), renamed.join('\n'));
  assert.ok(renamed.some((p) => p.includes('"## reordered" names no anomaly type')), renamed.join('\n'));

  // Two sections swapped.
  const swapped = problems(text, Object.fromEntries(Object.entries(ANOMALIES).reverse()));
  assert.ok(swapped.some((p) => p.startsWith('sections out of order')), swapped.join('\n'));

  // A default that differs from the checker's.
  const flipped = problems(text, { ...ANOMALIES, gap: { expectedByDefault: 'any' } });
  assert.ok(flipped.some((p) => p.startsWith('gap: the page says its default is `0`')), flipped.join('\n'));

  // A part missing.
  const start = text.indexOf('\n## overlap\n');
  const cut = text.slice(0, start) + text.slice(start).replace('\n**Defences.**', '\n**Countermeasures.**');
  const missing = problems(cut, ANOMALIES);
  assert.ok(missing.some((p) => p.startsWith('overlap: "**Defences.**" starts 0 lines')), missing.join('\n'));
});

test('docs/anomalies.md: the scenarios it names exist, and it cites only convoy and vendor documentation', () => {
  const named = new Set([...text.matchAll(/`((?:kafka|rabbitmq|sqs|servicebus|pubsub)-[a-z0-9-]+)`/g)].map((m) => m[1]));
  assert.ok(named.size > 30, `only ${named.size} scenarios named`);
  for (const name of named) assert.ok(existsSync(join(ROOT, 'workloads/nightly', `${name}.yaml`)), `no scenario workloads/nightly/${name}.yaml`);

  assert.doesNotMatch(text, /\bseeds?\b/i);
  assert.doesNotMatch(text, /\bissues? \d+|#\d+\b/i);
  for (const [, url] of text.matchAll(/\]\((https?:[^)\s]+)\)/g)) {
    assert.ok(VENDOR_HOSTS.includes(new URL(url).host), `a link outside the project that is not vendor documentation: ${url}`);
  }
  for (const [, target] of text.matchAll(/\]\(((?!https?:)[^)\s#]+)[^)]*\)/g)) {
    assert.ok(existsSync(join(ROOT, 'docs', target)), `a link to a missing file: ${target}`);
  }
});
