// The test suite's plan (bin/run-tests.js): which files, in which phase, in which processes, and
// in phase 2 which brokers are held up while each file runs.
//
// A test file says what it needs in a line of its own near its top (the first 40 lines):
//   // @needs kafka            it runs on a Kafka broker that the suite starts once and keeps up
//                              (`convoy brokers hold kafka`) from its first such file to its last:
//                              its runs and clients find it and reuse it, as runs reuse `brokers up`
//   // @needs kafka rabbitmq   on several of them
//   // @needs own kafka        it starts brokers of its own (kills, restarts, start failures,
//                              versions, settings no other file shares); such files run first,
//                              alone, while nothing else runs (clusters, kills and restarts are
//                              timed, and two cores are few)
//   // @needs own servicebus beside   the same, but light enough to run in a lane beside the
//                              files that share brokers (a broker of its own on ports of its own)
//   // @needs chromium         a program `convoy test` installs (chromium, toxiproxy, go), but no broker;
//                             `root`: it changes the machine (users, Debian packages) and cleans up;
//                             `postgres`: it starts a PostgreSQL server of its own (Debian's, about a second)
// A file with no such line needs nothing: it runs in the first phase, several processes at once
// (and in `--unit`, which installs nothing). Every other file runs in the second phase, one at a
// time (two at once on a 2-core machine make them flaky).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readTimes } from './test-times.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Brokers that run as their own processes, in the order the second phase holds them. */
export const BROKERS = readdirSync(join(ROOT, 'brokers')).filter((b) => existsSync(join(ROOT, 'brokers', b, 'index.ts')) && !existsSync(join(ROOT, 'brokers', b, 'test', 'IN-PROCESS')));
/** Programs a test may need without a broker (`convoy test` installs them; `--unit` does not). */
export const TOOLS = ['chromium', 'toxiproxy', 'go', 'root', 'postgres'];
const NEEDS = /^\/\/ @needs (.+)$/m;

/** A bad `@needs` line: one line for the console, naming the file and what it may say. */
export class NeedsError extends Error {}

/**
 * What a file needs: `shared` brokers (held up for it), `own` (it starts brokers itself), tools.
 * Files are paths relative to the checkout.
 */
export function needsOf(file) {
  const head = readFileSync(join(ROOT, file), 'utf8').split('\n', 40).join('\n');
  const m = NEEDS.exec(head);
  const need = { shared: [], own: false, tools: [], ownBrokers: [], beside: false };
  if (!m) return need;
  const words = m[1].trim().split(/\s+/);
  for (const [i, w] of words.entries()) {
    if (w === 'own' && i === 0) need.own = true;
    else if (w === 'beside' && need.own && i === words.length - 1) need.beside = true;
    else if (BROKERS.includes(w)) (need.own ? need.ownBrokers : need.shared).push(w);
    else if (TOOLS.includes(w) && !need.own) need.tools.push(w);
    else {
      const line = head.slice(0, m.index).split('\n').length;
      throw new NeedsError(`${file}:${line}: @needs: unknown need "${w}"; expected broker names (${BROKERS.join(', ')}), "own" and then broker names (and "beside" last), or tools (${TOOLS.join(', ')})`);
    }
  }
  if (need.own && need.ownBrokers.length === 0) throw new NeedsError(`${file}: @needs own: name the brokers it starts (${BROKERS.join(', ')})`);
  need.shared.sort((a, b) => BROKERS.indexOf(a) - BROKERS.indexOf(b));
  return need;
}

/** Anything at all: brokers, or a program only `convoy test` installs. */
export const needsSomething = (need) => need.own || need.shared.length > 0 || need.tools.length > 0;

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.test.ts') ? [p] : [];
  });
}

/** Every test file: test/** and each broker's brokers/<name>/test/**, sorted. */
export function allTestFiles() {
  const brokers = readdirSync(join(ROOT, 'brokers')).filter((b) => existsSync(join(ROOT, 'brokers', b, 'index.ts')));
  return [join(ROOT, 'test'), ...brokers.map((b) => join(ROOT, 'brokers', b, 'test'))].flatMap(walk).map((f) => relative(ROOT, f)).sort();
}

/**
 * The phases: the files that need nothing, `unitConcurrency` processes at once, then the others,
 * one at a time, in segments that each hold a set of brokers.
 */
export function phases(files, { unitOnly, unitConcurrency, isolated }) {
  const needs = new Map(files.map((f) => [f, needsOf(f)]));
  const unit = files.filter((f) => !needsSomething(needs.get(f)));
  const broker = unitOnly ? [] : files.filter((f) => needsSomething(needs.get(f)));
  return [
    { kind: 'unit', files: unit, concurrency: unitConcurrency, groups: groupsOf(unit, unitConcurrency, isolated) },
    { kind: 'brokers', files: broker, concurrency: 1, segments: segmentsOf(broker, needs) },
  ].filter((p) => p.files.length > 0);
}

/**
 * The second phase in segments: consecutive files that need the same brokers held. Files that
 * start their own brokers come first, alone, while nothing is held; then the files that share brokers,
 * ordered by the first broker they need and then by how many, so that each broker is held from
 * its first file to its last and at most two are up at once when no file needs more; last, a
 * segment `beside` that holds nothing but may run in a lane beside the others: files that need
 * only a program, and those whose own brokers are light (`@needs own <broker> beside`).
 */
export function segmentsOf(files, needs) {
  const isBeside = (n) => (n.own ? n.beside : n.shared.length === 0);
  const own = files.filter((f) => needs.get(f).own && !isBeside(needs.get(f)));
  const beside = files.filter((f) => isBeside(needs.get(f)));
  const shared = files.filter((f) => !needs.get(f).own && !isBeside(needs.get(f)));
  const rank = (f) => {
    const s = needs.get(f).shared;
    return [BROKERS.indexOf(s[0]), s.length, ...s.map((b) => BROKERS.indexOf(b))];
  };
  const cmp = (a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (let i = 0; i < Math.max(ra.length, rb.length); i++) if ((ra[i] ?? -1) !== (rb[i] ?? -1)) return (ra[i] ?? -1) - (rb[i] ?? -1);
    return a < b ? -1 : a > b ? 1 : 0;
  };
  const segments = [];
  if (own.length) segments.push({ hold: [], files: own });
  for (const f of [...shared].sort(cmp)) {
    const hold = needs.get(f).shared;
    const last = segments.at(-1);
    if (last && last.hold.length > 0 && last.hold.join() === hold.join()) last.files.push(f);
    else segments.push({ hold, files: [f] });
  }
  if (beside.length) segments.push({ hold: [], files: beside, beside: true });
  return segments;
}

/**
 * For each segment, the brokers to start before it and to stop after it: a broker is up from the
 * first segment that needs it to the last.
 */
export function holdSteps(segments) {
  const held = new Set();
  return segments.map((seg, i) => {
    const start = seg.hold.filter((b) => !held.has(b));
    for (const b of start) held.add(b);
    const later = new Set(segments.slice(i + 1).flatMap((s) => s.hold));
    const stop = [...held].filter((b) => !later.has(b));
    for (const b of stop) held.delete(b);
    return { start, stop };
  });
}

/**
 * The second phase's segments in lanes that run at once: the segment that holds nothing first,
 * alone (its files start brokers of their own, a 3-node cluster among them); then the others,
 * each lane one file at a time, so that no two files share a broker at once (a file may cut its
 * broker's link) and at most one broker per lane is up. Segments linked by a broker they share
 * stay in one lane; lanes are filled longest first (by the remembered times, 10 s a file when
 * none is known). Last, the `beside` segment's files, which hold nothing and share no broker, go
 * one by one to whichever lane ends soonest, each lane's share at its end.
 */
export function lanesOf(segments, lanes) {
  const alone = segments.find((s) => s.hold.length === 0 && !s.beside);
  const held = segments.filter((s) => s.hold.length > 0);
  const beside = segments.find((s) => s.beside);
  // Segments that share a broker, transitively, form one component.
  const components = [];
  for (const seg of held) {
    const linked = components.filter((c) => c.some((t) => t.hold.some((b) => seg.hold.includes(b))));
    const merged = [...linked.flat(), seg];
    for (const c of linked) components.splice(components.indexOf(c), 1);
    components.push(merged);
  }
  const known = readTimes();
  const weight = (c) => c.reduce((t, seg) => t + seg.files.reduce((u, f) => u + (known[f] ?? 10_000), 0), 0);
  const out = Array.from({ length: Math.max(1, lanes) }, () => ({ segments: [], ms: 0 }));
  for (const c of [...components].sort((a, b) => weight(b) - weight(a))) {
    const lane = out.reduce((min, l) => (l.ms < min.ms ? l : min));
    // Keep the phase's segment order inside a lane.
    lane.segments = [...lane.segments, ...c].sort((x, y) => held.indexOf(x) - held.indexOf(y));
    lane.ms += weight(c);
  }
  splitLongest(out, known);
  // The files beside the others share nothing with anything: dealt out one by one, the slowest
  // first, each to the lane that ends soonest, they even out what the brokers' lanes left uneven.
  if (beside) {
    const w = (f) => known[f] ?? 10_000;
    const mine = new Map();
    for (const f of [...beside.files].sort((a, b) => w(b) - w(a) || (a < b ? -1 : 1))) {
      const lane = out.reduce((min, l) => (l.ms < min.ms ? l : min));
      mine.set(lane, [...(mine.get(lane) ?? []), f]);
      lane.ms += w(f);
    }
    for (const [lane, files] of mine) lane.segments = [...lane.segments, { ...beside, files: beside.files.filter((f) => files.includes(f)) }];
  }
  return { alone, lanes: out.map((l) => l.segments).filter((l) => l.length > 0) };
}

/** What holding a broker of its own costs a lane: a Kafka node starts in about 15 s here. */
const HOLD_COST_MS = 20_000;

/**
 * One broker's files can outweigh every other lane together (Kafka's did: 612 s against 489 s).
 * Then the longest lane's heaviest segment gives files, the slowest first, to a segment of its
 * own in the shortest lane, which holds another instance of the same brokers (each lane keeps
 * its brokers in a folder of its own), as long as each move shortens the longer of the two,
 * counting the broker's start.
 */
function splitLongest(out, known) {
  if (out.length < 2) return;
  const w = (f) => known[f] ?? 10_000;
  const long = out.reduce((max, l) => (l.ms > max.ms ? l : max));
  const short = out.reduce((min, l) => (l.ms < min.ms ? l : min));
  const segWeight = (seg) => seg.files.reduce((t, f) => t + w(f), 0);
  const seg = long.segments.filter((s) => s.hold.length > 0).sort((a, b) => segWeight(b) - segWeight(a))[0];
  if (!seg || seg.files.length < 2) return;
  let longMs = long.ms;
  let shortMs = short.ms + HOLD_COST_MS;
  const moved = new Set();
  for (const f of [...seg.files].sort((a, b) => w(b) - w(a))) {
    if (moved.size === seg.files.length - 1) break;
    if (shortMs + w(f) >= longMs) continue; // the shortest lane would become the longest
    moved.add(f);
    longMs -= w(f);
    shortMs += w(f);
  }
  if (moved.size === 0) return;
  const twin = { hold: seg.hold, files: seg.files.filter((f) => moved.has(f)) };
  seg.files = seg.files.filter((f) => !moved.has(f));
  long.ms = longMs;
  short.segments = [...short.segments, twin];
  short.ms = shortMs;
}

/**
 * The processes of the first phase, as lists of files: a folder to a process (a process costs
 * about 0.5 s of CPU before its first test: node, tsx, and the harness modules every file imports
 * again), except where the remembered times (bin/test-times.js) say a folder would take longer
 * than its share (the whole phase's time over the processes at once, 10 s at least): then it is
 * cut into chunks of at most that share, the slowest files first. On more cores the longest
 * folder would otherwise set the phase's floor. The processes start slowest first, so a long one
 * does not start last. A file with no remembered time counts 1 s; with none at all (a fresh
 * machine) nothing is cut.
 */
const UNKNOWN_MS = 1000;
/** A process is worth its start-up only for this much work: no share is smaller. */
const MIN_SHARE_MS = 10_000;
function groupsOf(list, concurrency, isolated) {
  if (isolated) return list.map((f) => [f]);
  const known = readTimes();
  const est = (f) => known[f] ?? UNKNOWN_MS;
  const sum = (group) => group.reduce((t, f) => t + est(f), 0);
  const share = Math.max(MIN_SHARE_MS, sum(list) / concurrency);
  const byFolder = new Map();
  for (const f of list) byFolder.set(dirname(f), [...(byFolder.get(dirname(f)) ?? []), f]);
  const groups = [...byFolder.values()].flatMap((group) => {
    if (Object.keys(known).length === 0 || sum(group) <= share) return [group];
    const chunks = [];
    for (const f of [...group].sort((a, b) => est(b) - est(a))) {
      const fits = chunks.find((c) => sum(c) + est(f) <= share);
      if (fits) fits.push(f);
      else chunks.push([f]);
    }
    return chunks.map((c) => c.sort());
  });
  // Stable: equal estimates keep the files' order.
  return groups.sort((a, b) => sum(b) - sum(a));
}
