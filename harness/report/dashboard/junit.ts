/**
 * JUnit XML for CI systems: one <testsuite> per scenario, one <testcase> for the run and one
 * per expectation (informational defaults left out).
 *   run          <error> when the run is broken (verdict unknown, or it produced no result)
 *   expectation  <failure> when it failed; <error> when it could not be decided
 * A scenario file that could not be loaded is a suite with one <error> test case, "load".
 */
import { label, outcomeText } from '../../checker/expectations.ts';
import { scenarioName, startedAt, type ReportResult } from '../view.ts';

export interface SuiteEntry {
  /** The scenario name (or the file name when it did not load). */
  scenario: string;
  file?: string;
  result?: ReportResult;
  /** Why there is no result (load error, broken infrastructure). */
  error?: string;
  /** What failed when there is no result: the scenario file, or the run. */
  stage?: 'load' | 'run';
}

interface Case {
  name: string;
  failure?: { type: string; message: string; body?: string };
  error?: { type: string; message: string; body?: string };
}

/** Escapes text for XML and drops characters XML 1.0 cannot hold. */
export function xml(s: unknown): string {
  return String(s ?? '')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function casesOf(e: SuiteEntry): Case[] {
  if (!e.result) {
    const stage = e.stage ?? 'run';
    return [{ name: stage, error: { type: stage === 'load' ? 'scenario' : 'infrastructure', message: e.error ?? 'no result', body: e.file } }];
  }
  const r = e.result;
  const run: Case = { name: 'run' };
  if (r.verdict.status === 'unknown') {
    run.error = { type: 'unknown', message: `verdict unknown: ${(r.verdict.reasons ?? []).join('; ') || 'the run could not complete'}`, body: (r.verdict.reasons ?? []).join('\n') };
  }
  const cases = [run];
  for (const x of r.expectations ?? []) {
    if (x.source === 'default' && x.expected === 'any') continue;
    const c: Case = { name: `${label(x)} ${x.expected}` };
    if (x.held === false) c.failure = { type: x.unit ? 'threshold' : 'expectation', message: `${label(x)}: ${outcomeText(x)}` };
    else if (x.held === null) c.error = { type: 'undecided', message: x.unit ? `${label(x)}: ${x.note ?? 'not judged'}` : `${label(x)}: fault "${x.window?.fault}" never occurred` };
    cases.push(c);
  }
  return cases;
}

function seconds(r: ReportResult | undefined): string {
  const a = r ? Date.parse(startedAt(r) ?? '') : NaN;
  const b = r ? Date.parse(r.finishedAt ?? r.finished ?? '') : NaN;
  return Number.isFinite(a) && Number.isFinite(b) && b >= a ? ((b - a) / 1000).toFixed(3) : '0';
}

export function junitXml(entries: readonly SuiteEntry[], name = 'convoy'): string {
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let time = 0;
  const suites = entries.map((e) => {
    const cases = casesOf(e);
    const f = cases.filter((c) => c.failure).length;
    const er = cases.filter((c) => c.error).length;
    tests += cases.length;
    failures += f;
    errors += er;
    const t = seconds(e.result);
    time += Number(t);
    const suiteName = e.result ? scenarioName(e.result) : e.scenario;
    const props = e.result
      ? `\n    <properties>\n      <property name="runId" value="${xml(e.result.runId)}"/>\n      <property name="verdict" value="${xml(e.result.verdict.status)}"/>\n      <property name="broker" value="${xml(e.result.environment?.broker ?? e.result.scenario?.broker?.kind ?? '')}"/>\n    </properties>`
      : '';
    const body = cases
      .map((c) => {
        const open = `    <testcase classname="convoy.${xml(suiteName)}" name="${xml(c.name)}" time="${c.name === 'run' ? t : '0'}"`;
        if (c.failure) return `${open}>\n      <failure type="${xml(c.failure.type)}" message="${xml(c.failure.message)}">${xml(c.failure.body ?? c.failure.message)}</failure>\n    </testcase>`;
        if (c.error) return `${open}>\n      <error type="${xml(c.error.type)}" message="${xml(c.error.message)}">${xml(c.error.body ?? c.error.message)}</error>\n    </testcase>`;
        return `${open}/>`;
      })
      .join('\n');
    const stamp = e.result ? startedAt(e.result) : null;
    return `  <testsuite name="${xml(suiteName)}" tests="${cases.length}" failures="${f}" errors="${er}" skipped="0" time="${t}"${stamp ? ` timestamp="${xml(stamp.replace(/Z$/, ''))}"` : ''}>${props}\n${body}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xml(name)}" tests="${tests}" failures="${failures}" errors="${errors}" time="${time.toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`;
}
