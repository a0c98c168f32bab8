/**
 * Who owned which lane (partition) of a consumer group, and when, from the consumers' own
 * rebalance callbacks in the history (`rebalance` events: `assigned` adds lanes to a member,
 * `revoked` takes them away; eager protocols revoke everything and assign it again, cooperative
 * ones only what moves) and from the faults that ended a consumer process (a fault start whose
 * evidence names the `consumer` and says its process is `gone`: a killed member never reports
 * its revocation). Three figures come out of it:
 * - handovers: a lane assigned to a member other than the one that held it last (live or
 *   dead). A static member that comes back within its session gets its own lanes again: no
 *   handover, though its lanes had no live owner meanwhile.
 * - departures: per fault that ended a member, the lanes it held last and how many of them
 *   went to another member next rather than back to it (a static member back within its
 *   session: none).
 * - unowned time: lane-milliseconds with no live owner in the measured phase, up to the last
 *   send (an eager rebalance's revoke-and-assign, a dead member's session, a restart).
 */

export interface GroupEvent {
  type: string;
  at: number;
  consumer?: string;
  lanes?: string[];
  phase?: string;
  kind?: string;
  /** A fault's name. */
  name?: string;
  evidence?: unknown;
}

export interface Departure {
  /** The fault that ended the member's process. */
  fault: string;
  consumer: string;
  at: number;
  /** Lanes the member held last when it went. */
  lanes: number;
  /** Of those, the ones whose next owner was another member (not the member itself, back). */
  takenByOthers: number;
  /** When it was assigned again (lanes or none: back in the group), ms after it went (absent: never in the run). */
  backAfterMs?: number;
}

export interface Handover {
  lane: string;
  from: string;
  to: string;
  /** When the new owner reported it (µs). */
  at: number;
}

export interface GroupOwnership {
  /** Lanes seen in any assignment. */
  lanes: number;
  /** `assigned` callbacks, over every member. */
  assignments: number;
  /** `revoked` callbacks (non-empty), over every member. */
  revocations: number;
  handovers: number;
  /** Handovers per member the lanes were taken from (every member that held a lane: 0 when none was taken). */
  handoversFrom: Record<string, number>;
  /** Lane-milliseconds without a live owner in the measured phase, up to the last send. */
  unownedMs: number;
  /** The longest single stretch one lane had no live owner (ms). */
  longestUnownedMs: number;
  /** The first handovers (at most 50), in time order. */
  list: Handover[];
  departures: Departure[];
}

/** A consumer process a fault ended: the evidence names it and its process is gone. */
function endedConsumer(e: GroupEvent): string | undefined {
  if (e.type !== 'fault' || e.phase !== 'start') return undefined;
  const ev = e.evidence as { consumer?: unknown; state?: unknown } | undefined;
  return typeof ev?.consumer === 'string' && ev.state === 'gone' ? ev.consumer : undefined;
}

/**
 * The group's ownership figures from its events; null when no member reported an assignment
 * (a client without rebalance callbacks, or a broker without groups). Only what happens from
 * `fromUs` (the measured phase: the group has formed) to `endUs` (the last send) counts: the
 * joins of the group's start are no handovers.
 */
export function groupOwnership(events: GroupEvent[], window: { fromUs: number; endUs: number }): GroupOwnership | null {
  const { fromUs, endUs } = window;
  const sorted = [...events, { type: 'measured-phase', at: fromUs }].sort((a, b) => a.at - b.at);
  const allLanes = new Set<string>();
  for (const e of sorted) if (e.type === 'rebalance' && e.phase === 'assigned') for (const l of e.lanes ?? []) allLanes.add(l);
  if (allLanes.size === 0) return null;

  const liveOwner = new Map<string, string>();
  const lastOwner = new Map<string, string>();
  /** When each lane lost its live owner (absent: it has one). */
  const unownedSince = new Map<string, number>();
  const out: GroupOwnership = { lanes: allLanes.size, assignments: 0, revocations: 0, handovers: 0, handoversFrom: {}, unownedMs: 0, longestUnownedMs: 0, list: [], departures: [] };
  /** Departures still open: the lanes whose next owner is not known yet. */
  const away = new Map<Departure, Set<string>>();

  const release = (lane: string, at: number) => {
    liveOwner.delete(lane);
    unownedSince.set(lane, at);
  };
  const settle = (lane: string, at: number) => {
    const since = unownedSince.get(lane);
    if (since === undefined) return;
    unownedSince.delete(lane);
    const ms = (Math.min(at, endUs) - Math.max(since, fromUs)) / 1000;
    if (ms <= 0) return;
    out.unownedMs += ms;
    out.longestUnownedMs = Math.max(out.longestUnownedMs, ms);
  };

  for (const e of sorted) {
    if (e.type === 'measured-phase') {
      // A lane nobody holds as the measured phase starts is unowned from here.
      for (const lane of allLanes) if (!liveOwner.has(lane) && !unownedSince.has(lane)) unownedSince.set(lane, e.at);
      continue;
    }
    const gone = endedConsumer(e);
    if (gone !== undefined) {
      for (const [lane, owner] of [...liveOwner]) if (owner === gone) release(lane, e.at);
      const held = new Set([...lastOwner].filter(([, owner]) => owner === gone).map(([lane]) => lane));
      const d: Departure = { fault: e.name ?? e.kind ?? 'fault', consumer: gone, at: e.at, lanes: held.size, takenByOthers: 0 };
      out.departures.push(d);
      away.set(d, held);
      continue;
    }
    if (e.type !== 'rebalance' || e.consumer === undefined) continue;
    const lanes = e.lanes ?? [];
    if (e.phase === 'revoked' && lanes.length > 0) {
      out.revocations++;
      for (const lane of lanes) if (liveOwner.get(lane) === e.consumer) release(lane, e.at);
    } else if (e.phase === 'assigned') {
      out.assignments++;
      out.handoversFrom[e.consumer] ??= 0;
      // A member that went is back once it is assigned anything (an empty assignment too).
      for (const d of away.keys()) if (d.consumer === e.consumer && d.backAfterMs === undefined) d.backAfterMs = Math.round((e.at - d.at) / 1000);
      for (const lane of lanes) {
        // A departed member's lane goes to its next owner: another member, or the member itself.
        for (const [d, held] of away) if (held.delete(lane) && e.consumer !== d.consumer) d.takenByOthers++;
        const before = lastOwner.get(lane);
        if (before !== undefined && before !== e.consumer && e.at >= fromUs) {
          out.handovers++;
          out.handoversFrom[before] = (out.handoversFrom[before] ?? 0) + 1;
          if (out.list.length < 50) out.list.push({ lane, from: before, to: e.consumer, at: e.at });
        }
        settle(lane, e.at);
        liveOwner.set(lane, e.consumer);
        lastOwner.set(lane, e.consumer);
      }
      for (const [d, held] of away) if (held.size === 0 && d.backAfterMs !== undefined) away.delete(d);
    }
  }
  for (const lane of [...unownedSince.keys()]) settle(lane, endUs);
  out.unownedMs = Math.round(out.unownedMs);
  out.longestUnownedMs = Math.round(out.longestUnownedMs);
  return out;
}
