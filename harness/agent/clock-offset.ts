/**
 * An agent's clock against the runner's, as NTP measures it: the agent read its clock somewhere
 * inside the round trip, so its offset is its reading minus the round trip's middle, give or
 * take half the round trip (plus how finely it reads its clock). Of a few round trips the
 * shortest bounds it best; a trip the network or the scheduler delayed only widens its own.
 */
import type { AgentLink, ClockRoundTrip } from './client.ts';

export interface ClockOffset {
  /** The runner's clock at the middle of the chosen round trip (µs). */
  at: number;
  /** The agent's clock minus the runner's (µs). */
  offset: number;
  /** How far `offset` can be off (µs). */
  uncertainty: number;
}

/** The offset from round trips: the shortest one's. */
export function offsetFrom(trips: readonly ClockRoundTrip[]): ClockOffset {
  if (trips.length === 0) throw new Error('no clock round trips');
  const best = trips.reduce((a, b) => (b.receivedUs - b.sentUs < a.receivedUs - a.sentUs ? b : a));
  const mid = (best.sentUs + best.receivedUs) / 2;
  return { at: Math.round(mid), offset: Math.round(best.agentUs - mid), uncertainty: Math.ceil((best.receivedUs - best.sentUs) / 2) + best.granularityUs };
}

/** Measures an agent's clock with `rounds` round trips, one after another. */
export async function measureOffset(link: AgentLink, rounds = 5): Promise<ClockOffset> {
  const trips: ClockRoundTrip[] = [];
  for (let i = 0; i < rounds; i++) trips.push(await link.readClock());
  return offsetFrom(trips);
}
