/**
 * What an order-service run adds (the result's `gateway`, v1.4; harness/gateway/figures.ts):
 * the service's shape (mode, instances, relays), the request rate reached against the one
 * asked, the HTTP latency convoy measured per role beside autocannon's own figures and their
 * known limits, duplicate versions, and the store the final state is judged against.
 * Absent from runs without `workload.gateway`.
 */
import { dataAttrs, esc } from '../html.ts';
import { DASH, formatCount, formatDuration } from '../format.ts';
import type { ReportResult } from '../view.ts';
import type { GatewaySection } from '../../checker/result-schema.ts';
import type { LatencySummary } from '../../metrics/histogram.ts';
import type { ReportSection } from './contract.ts';

type Gateway = typeof GatewaySection.static;
interface RoleLatency { latency: LatencySummary; byStatus: Record<string, number>; processes: string[] }
interface AutocannonSummary {
  latencyMs?: Partial<Record<'mean' | 'p50' | 'p90' | 'p99' | 'p99_9' | 'max', number>>;
  requestsPerSecond?: { mean?: number; p50?: number };
  errors?: number;
  timeouts?: number;
  non2xx?: number;
}

const STATS = ['p50', 'p90', 'p99', 'p999', 'max'] as const;
const AUTOCANNON_STATS: Record<(typeof STATS)[number], 'p50' | 'p90' | 'p99' | 'p99_9' | 'max'> = { p50: 'p50', p90: 'p90', p99: 'p99', p999: 'p99_9', max: 'max' };

function item(label: string, name: string, value: number | string | null | undefined, text: string): string {
  return `<dt>${esc(label)}</dt><dd><span${dataAttrs({ gateway: name, value: value ?? null })}>${esc(text)}</span></dd>`;
}

function latencyRows(http: Record<string, unknown>, autocannon: AutocannonSummary | null): string {
  const rows = Object.entries(http as Record<string, RoleLatency>).map(([role, r]) => {
    const statuses = Object.entries(r.byStatus).map(([s, n]) => `${s}: ${formatCount(n)}`).join(', ');
    const cells = STATS.map((s) => `<td class="num"${dataAttrs({ role, stat: s, us: r.latency[s] })}>${esc(formatDuration(r.latency[s]))}</td>`).join('');
    return `<tr${dataAttrs({ role })}><td>convoy, ${esc(role)} (${esc(r.processes.join(', '))})</td><td class="num">${esc(formatCount(r.latency.count))}</td>${cells}<td>${esc(statuses || DASH)}</td></tr>`;
  });
  const ms = autocannon?.latencyMs;
  if (ms) {
    // autocannon measures in whole milliseconds; shown in µs like every other duration.
    const cells = STATS.map((s) => {
      const v = ms[AUTOCANNON_STATS[s]];
      return `<td class="num"${dataAttrs({ role: 'autocannon', stat: s, us: v === undefined ? null : v * 1000 })}>${esc(v === undefined ? DASH : formatDuration(v * 1000))}</td>`;
    }).join('');
    const bad = (autocannon.errors ?? 0) + (autocannon.timeouts ?? 0) + (autocannon.non2xx ?? 0);
    rows.push(`<tr data-role="autocannon"><td>autocannon (client side, see its limits)</td><td class="num">${DASH}</td>${cells}<td>${esc(`errors, timeouts, non-2xx: ${formatCount(bad)}`)}</td></tr>`);
  }
  if (rows.length === 0) return '<p class="hint">No HTTP latency was recorded.</p>';
  return `<table class="gateway-latency" id="gateway-latency"><thead><tr><th>measured by</th><th>requests</th>${STATS.map((s) => `<th>${s}</th>`).join('')}<th>answers</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

export function gatewaySection(r: ReportResult): string {
  const g = r.gateway as Gateway | undefined;
  if (!g) return '';
  const q = g.requests;
  const d = g.duplicateVersions;
  const ac = (g.autocannon.summary ?? null) as AutocannonSummary | null;
  const duplicates = d
    ? item('Duplicate versions', 'duplicateVersions', d.count, `${formatCount(d.count)} events on ${formatCount(d.keys)} orders, of ${formatCount(d.events)} distinct events${d.examples.length ? `; e.g. ${d.examples.slice(0, 3).map((e) => `${e.key} v${e.version} (events ${e.events.join(', ')})`).join('; ')}` : ''}`)
    : item('Duplicate versions', 'duplicateVersions', null, 'not recorded (the send events carry no version)');
  return `<section id="gateway">
  <h2>Gateway: the order service under load</h2>
  <p class="hint">The service under test: HTTP requests change orders; its instances publish each change as an event. The store at the end is the truth the final state is judged against.</p>
  <dl class="identity" id="gateway-shape">
    ${item('Mode', 'mode', g.mode, g.mode)}
    ${item('Instances', 'instances', g.instances, `${formatCount(g.instances)}, ${formatCount(g.connections)} client connections${g.relays ? `, ${formatCount(g.relays)} outbox relays` : ''}`)}
    ${item('Request rate', 'achieved', q.achieved, `${q.achieved === null ? DASH : formatCount(q.achieved)} of ${formatCount(q.asked)} requests/s asked`)}
    ${item('Requests', 'failed', q.failed, `${formatCount(q.sent)} sent, ${formatCount(q.ok)} answered ok, ${formatCount(q.failed)} failed`)}
    ${duplicates}
    ${item('Store at the end', 'storeEvents', g.store?.events ?? null, g.store ? `${formatCount(g.store.orders)} orders, ${formatCount(g.store.events)} events` : 'not found')}
  </dl>
  <h3>HTTP latency</h3>
  ${latencyRows(g.http, ac)}
  ${g.autocannon.limits.length ? `<details><summary>autocannon's limits</summary><ul>${g.autocannon.limits.map((l) => `<li>${esc(l)}</li>`).join('')}</ul></details>` : ''}
</section>`;
}

export default { order: 40, nav: { id: 'gateway', label: 'Gateway' }, render: ({ result }) => gatewaySection(result) } satisfies ReportSection;
