/**
 * A broker endpoint only this host can reach: a run whose workers go to agents on other hosts
 * hands them the deployment's endpoint as it is, and a loopback address there names each
 * agent's own loopback, not this host's. Agents on loopback themselves (tests, one machine)
 * reach it, so only agents elsewhere make it a problem.
 */
import type { AgentPlacement } from './placement.ts';

const LOOPBACK_HOST = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|::1|\[::1\])$/i;
/** Host names inside endpoint strings: `scheme://[user@]host[:port]`, `host:port[,host:port]`, a bare host. */
const HOSTS_IN = /(?:^|[/@,\s])(\[[^\]]+\]|[^/@,\s:]+)(?=:\d|[/,\s]|$)/g;

/** The first loopback host in the endpoint when some agent is on another host; undefined otherwise. */
export function loopbackEndpointHost(endpoint: Record<string, unknown> | undefined, placements: readonly AgentPlacement[]): string | undefined {
  const elsewhere = placements.some((p) => p.address !== 'here' && !LOOPBACK_HOST.test(p.address.host));
  if (!elsewhere || !endpoint) return undefined;
  for (const text of stringsOf(endpoint)) {
    for (const m of text.matchAll(HOSTS_IN)) if (LOOPBACK_HOST.test(m[1]!)) return m[1];
  }
  return undefined;
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsOf);
  return [];
}
