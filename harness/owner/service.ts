/**
 * The entities' owner: a small HTTP service the run starts when its consumers read state from
 * the owner (event as notification; the resequencer's fetch at its bound). In a real system
 * the owner commits a change and then publishes the event; here the owner serves each entity's
 * state at the highest version sent so far, where "sent" is the producers' open-loop schedule:
 * a producer never sends a message before its intended time, so the owner is never behind an
 * event a consumer holds, and at most a publish delay ahead of it (an event still on its way).
 *
 *   GET /entities/<key>  → 200 { key, version, state } | 404 (nothing sent yet) | 503 (down)
 *
 * Its faults (harness/faults/owner-latency.ts, owner-down.ts) act on it through `control`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nowMicros } from '../clock.ts';
import type { Scenario } from '../spec/types.ts';
import { MessagePlan } from '../workload/schedule.ts';
import { stateAt } from '../workload/entity.ts';

/** What faults may change while it runs. */
export interface OwnerControl {
  /** Added to every answer, ms (owner-latency). */
  latencyMs: number;
  /** Answers 503 to everything (owner-down). */
  down: boolean;
}

export interface OwnerService {
  url: string;
  control: OwnerControl;
  /** The schedule's start instant (run clock, µs): before it nothing was sent. */
  begin(startUs: number): void;
  /** Requests answered, by status. */
  readonly served: Record<string, number>;
  close(): Promise<void>;
}

/** At most this many plan positions are indexed (an unlimited rate has no end). */
const MAX_INDEXED = 5_000_000;

export async function startOwner(scenario: Pick<Scenario, 'seed' | 'workload' | 'consumers'>): Promise<OwnerService> {
  const index = versionIndex(scenario);
  const entity = scenario.workload.entity;
  const control: OwnerControl = { latencyMs: 0, down: false };
  const served: Record<string, number> = {};
  let startUs: number | undefined;
  const server: Server = createServer((req, res) => {
    const answer = (status: number, body?: unknown) => {
      served[status] = (served[status] ?? 0) + 1;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    const reply = () => {
      if (control.down) return answer(503, { error: 'owner down' });
      const m = /^\/entities\/(.+)$/.exec(req.url ?? '');
      if (!m) return answer(404, { error: 'no such path' });
      const key = decodeURIComponent(m[1]!);
      const version = startUs === undefined ? 0 : versionAt(index.get(key), nowMicros() - startUs);
      if (version === 0) return answer(404, { error: 'nothing sent for this key yet' });
      answer(200, { key, version, state: stateAt(entity, key, version) });
    };
    if (control.latencyMs > 0) setTimeout(reply, control.latencyMs);
    else reply();
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((ok, fail) => server.once('error', fail).listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    control,
    served,
    begin: (us) => (startUs = us),
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** Per key, its versions' intended send offsets (µs from the start), in version order. */
function versionIndex(scenario: Pick<Scenario, 'seed' | 'workload' | 'consumers'>): Map<string, Float64Array> {
  const plan = new MessagePlan({ seed: scenario.seed, workload: scenario.workload, poison: scenario.consumers.poison });
  const lists = new Map<string, number[]>();
  for (const m of plan.messages(undefined, MAX_INDEXED)) {
    let l = lists.get(m.key);
    if (!l) lists.set(m.key, (l = []));
    // An unlimited rate has no schedule: every version counts as sent from the start.
    l[m.seq - 1] = m.intendedOffsetUs ?? 0;
  }
  return new Map([...lists].map(([k, l]) => [k, Float64Array.from(l)]));
}

/** The highest version whose intended send time is at or before `offsetUs`; 0 when none. */
export function versionAt(offsets: Float64Array | undefined, offsetUs: number): number {
  if (!offsets) return 0;
  let lo = 0;
  let hi = offsets.length; // offsets rise with the version: binary search
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid]! <= offsetUs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
