import { relative } from 'node:path';
import type { Result } from './analyze.ts';
import type { CpuFigures } from './cpu-watch.ts';

interface Row {
  type: string;
  expected: string;
  window: { relation: string; fault: string } | null;
  found: number | null;
  keys: number | null;
  held: boolean | null;
  source: string;
}

const ms = (us: number | undefined) => (us === undefined ? '-' : us >= 10_000 ? `${(us / 1000).toFixed(0)} ms` : `${(us / 1000).toFixed(2)} ms`);

/** The human summary of one run, on stdout. */
export function printSummary(result: Result, runDir: string): void {
  const out: string[] = [];
  const v = result.verdict;
  out.push('');
  out.push(`${String((result.scenario as { name: string }).name)}: ${v.status.toUpperCase()}   (${relative(process.cwd(), runDir) || runDir})`);
  for (const r of v.reasons) out.push(`  - ${r}`);
  out.push('  expectation                          expected  found  keys  held');
  for (const e of result.expectations as Row[]) {
    if (e.source === 'default' && e.expected === 'any' && !e.found) continue;
    const label = `${e.type}${e.window ? ` ${e.window.relation} ${e.window.fault}` : ''}`;
    const held = e.held === null ? '?' : e.held ? 'yes' : 'NO';
    out.push(`  ${label.padEnd(37)}${e.expected.padEnd(10)}${String(e.found ?? '-').padEnd(7)}${String(e.keys ?? '-').padEnd(6)}${held}`);
  }
  const w = result.workload as { sent: number; achievedRate: number; targetRate: number | null; finalState: Record<string, { strategy: string; wrong: number; keys: number; unreachable: number; primary: boolean }> | null };
  out.push(`  sent ${w.sent} messages, ${w.achievedRate}/s${w.targetRate ? ` (target ${w.targetRate}/s)` : ''}`);
  const lat = (result.latency as { whole: Record<string, { p50: number; p99: number; max: number; count: number }> }).whole;
  for (const name of ['publish', 'publishDelay', 'endToEnd']) {
    const s = lat[name];
    if (s && s.count) out.push(`  ${name.padEnd(13)} p50 ${ms(s.p50).padEnd(10)} p99 ${ms(s.p99).padEnd(10)} max ${ms(s.max)}`);
  }
  if (w.finalState) {
    const parts = Object.values(w.finalState).map((f) => `${f.strategy}${f.primary ? '*' : ''} ${f.wrong}/${f.keys} keys wrong`);
    out.push(`  final state: ${parts.join(', ')}${Object.values(w.finalState)[0]?.unreachable ? ` (${Object.values(w.finalState)[0].unreachable} keys unreachable)` : ''}`);
  }
  const cpu = (result.harness as { cpu?: CpuFigures | null } | undefined)?.cpu;
  if (cpu && cpu.host.samples > 0) {
    const busiest = Object.entries(cpu.workers).sort((a, b) => b[1].meanPercent - a[1].meanPercent)[0];
    out.push(`  harness CPU while sending: host ${cpu.host.meanPercent}% of ${cpu.host.cpus} CPUs${busiest ? `, busiest worker ${busiest[0]} ${busiest[1].meanPercent}% of a core` : ''}`);
  }
  process.stdout.write(out.join('\n') + '\n');
}
