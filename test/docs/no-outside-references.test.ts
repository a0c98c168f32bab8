/**
 * convoy's documentation stands on its own: a reader can follow every reference in it. The files a
 * user reads (README.md, everything under docs/ and workloads/, YAML comments and descriptions
 * included, and each broker's README) must not cite:
 *
 * - the texts convoy was first built from ("seed 000", "seed 001's", "the seeds'", "seeds/",
 *   "the seed articles"). A scenario's random seed (`seed: 31`, "the workload seed", "seed
 *   1680753710") is convoy's own and stays;
 * - convoy's own tracker ("issue 29", "issue 3's definitions", "#47", "the Service Bus issue",
 *   "PR #12") or the notes and sessions of its development ("this session", "the stored corpus");
 * - a public tracker other than as `owner/repo#N` with its address: in Markdown the reference is
 *   the text of a link to https://github.com/owner/repo/issues/N (or /pull/N); in a YAML file
 *   the address appears in the same file.
 *
 * Cost: well under a second (reads about 150 small files).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../runner/helpers.ts';

interface Hit {
  line: number;
  text: string;
  why: string;
}

const SEED_RULES: [RegExp, string][] = [
  [/\bseeds?\s+0\d+/i, 'cites a seed text by number'],
  [/\bseeds\//i, 'cites the seeds folder'],
  [/\bseed\s+(?:articles?|posts?|texts?|documents?)\b/i, 'cites the seed articles'],
  [/\bseeds'/i, "cites the seeds (the seeds' ...)"],
  [/\bthe seeds\s+(?:warn|say|says|describe|call|show|recommend|mention)/i, 'cites the seeds'],
];
const ISSUE_RULES: [RegExp, string][] = [
  [/\bissues?\b/i, "speaks of an issue (convoy's own are not the reader's; a public one is owner/repo#N with its link)"],
  [/\b(?:PR|pull request)\s*#?\d+/i, 'cites a pull request by number (use owner/repo#N with its link)'],
  [/\b(?:in|during) (?:this|that|the last|an earlier) session\b|\bthis session could\b|\b(?:stored|searchable) corpus\b/i, 'speaks of the development sessions, not of convoy'],
];
/** owner/repo#N, the one way to cite a public tracker. */
const PUBLIC_REF = /([A-Za-z0-9][\w.-]*)\/([\w.-]+)#(\d+)/g;

/** Addresses (removed before the word rules run: github.com/x/y/issues/3 is a fine reference). */
const URL = /https?:\/\/[^\s)>\]"']+/g;
/** Inline code spans: a quoted log line may hold "#0". */
const CODE_SPAN = /`[^`\n]*`/g;

/**
 * Every reference in one file's text that a reader cannot follow, with its line. `markdown` says
 * how a public tracker reference must be written (a link in Markdown; its address in the file
 * otherwise).
 */
export function outsideReferences(text: string, markdown: boolean): Hit[] {
  const hits: Hit[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = i + 1;
    const noUrls = raw.replace(URL, ' ');
    for (const [re, why] of [...SEED_RULES, ...ISSUE_RULES]) if (re.test(noUrls)) hits.push({ line, text: raw.trim(), why });

    const plain = (markdown ? noUrls.replace(CODE_SPAN, ' ') : noUrls);
    // A number after '#' that is not owner/repo#N: convoy's own tracker, or a repository without its owner.
    for (const m of plain.matchAll(/(\S*)#(\d+)\b/g)) {
      if (/^[A-Za-z0-9][\w.-]*\/[\w.-]+$/.test(m[1].replace(/^[([]+/, ''))) continue;
      hits.push({ line, text: raw.trim(), why: `"${m[0]}" is not owner/repo#N` });
    }
    for (const m of raw.matchAll(PUBLIC_REF)) {
      const [ref, owner, repo, n] = m;
      const address = new RegExp(`https://github\\.com/${owner}/${repo}/(?:issues|pull|discussions)/${n}\\b`);
      if (markdown) {
        // The reference is the text of a link (or inside it) to its own address.
        const linked = [...raw.matchAll(/\[([^\]]*)\]\(([^)\s]+)\)/g)].some((l) => l[1].includes(ref) && address.test(l[2]));
        if (!linked) hits.push({ line, text: raw.trim(), why: `${ref} is not a link to its address` });
      } else if (!address.test(text)) {
        hits.push({ line, text: raw.trim(), why: `${ref} without its address in the file` });
      }
    }
  });
  return hits;
}

/** The files a user reads: README.md, docs/**, workloads/** and brokers/<name>/README.md (text files). */
export function userFacingFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
      const p = join(dir, d.name);
      return d.isDirectory() ? walk(p) : /\.(md|ya?ml|txt|json)$/.test(d.name) ? [p] : [];
    });
  const brokers = readdirSync(join(ROOT, 'brokers'))
    .map((b) => join(ROOT, 'brokers', b, 'README.md'))
    .filter((p) => statSync(p, { throwIfNoEntry: false })?.isFile());
  return [join(ROOT, 'README.md'), ...walk(join(ROOT, 'docs')), ...walk(join(ROOT, 'workloads')), ...brokers];
}

test('README, docs, workloads and broker READMEs cite no seeds, no convoy issue numbers, and public trackers only as links', () => {
  const files = userFacingFiles();
  assert.ok(files.length > 100, `only ${files.length} files found`);
  const all = files.flatMap((f) =>
    outsideReferences(readFileSync(f, 'utf8'), f.endsWith('.md')).map((h) => `${relative(ROOT, f)}:${h.line}: ${h.why}: ${h.text.slice(0, 160)}`),
  );
  assert.deepEqual(all, []);
});

test('the scanner finds a planted seed or issue reference, and passes convoy\'s own seeds and linked public references', () => {
  const planted = [
    'Park the key (seed 000): orders whose events carry only their change',
    "Seed 003's wallet, with events that carry only a signed amount",
    'the per-key tags follow the checker\'s definitions (issue 3) on the key\'s own events',
    'a scenario for the retry-reorder issue',
    'fixed since #47',
    'as the seeds warn, a node restart moves keys',
    'a bare repository reference (librdkafka#4953)',
    'a reference without its link: rabbitmq/rabbitmq-server#10499',
    'see seeds/001-orders.md',
  ];
  for (const p of planted) {
    const hits = outsideReferences(`first line\n${p}\n`, true);
    assert.equal(hits.length > 0, true, `not found: ${p}`);
    assert.equal(hits[0].line, 2);
  }
  // In YAML, a public reference needs its address somewhere in the file.
  assert.equal(outsideReferences('# Known bug: tulios/kafkajs#1046\nname: x\n', false).length, 1);
  assert.deepEqual(outsideReferences('# Known bug: tulios/kafkajs#1046 (https://github.com/tulios/kafkajs/issues/1046)\n', false), []);

  const fine = [
    'seed: 31',
    'Poison messages: 2% of the messages (chosen by the seed) fail every time.',
    '- competing-stall × naive: defences-1-x (seed 1680753710, pass)',
    'with the same plan (`plan.json`: cells, order, seeds)',
    '[rabbitmq/rabbitmq-server#10499](https://github.com/rabbitmq/rabbitmq-server/issues/10499)',
    'the log says `Timed out ProduceRequest in flight (timeout #0)`',
    'see https://github.com/tulios/kafkajs/issues/945 for the report',
  ];
  for (const f of fine) assert.deepEqual(outsideReferences(f, true), [], f);
});
