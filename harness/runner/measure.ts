import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { HistoryEvent } from '../history/events.ts';
import type { EventClocks } from '../history/clock-offsets.ts';
import { MetricsCollector, type Window } from '../metrics/collector.ts';
import type { RatesSection } from '../metrics/rates.ts';
import type { KeyWrites } from '../metrics/lane-moves.ts';
import { truth, type VersionedState } from '../workload/entity.ts';
import { skewReport } from '../workload/skew.ts';
import { emptyCounts, type Apply, type EffectCounts } from '../consumer/replay.ts';
import type { Scenario } from '../spec/types.ts';
import { ConsumerCostCounter, type ConsumerCosts } from '../metrics/consumer-costs.ts';
import { entityOf } from '../workload/split.ts';
import { entityOrder, type EntityOrder } from '../checker/entity-order.ts';
import type { GroupEvent } from '../metrics/group-ownership.ts';

export interface Measurements {
  latency: Record<string, unknown>;
  /** Due, sent and handled per second, by time scope (thresholds on throughput). */
  rates: RatesSection;
  series: Record<string, unknown>;
  skew: ReturnType<typeof skewReport>;
  /** Sends in the measured phase, and the rate they reached. */
  sent: number;
  /** When the last send of the measured phase happened (run clock, µs). */
  lastSendUs: number;
  acked: number;
  truth: Map<string, VersionedState>;
  /** Successful applies (outcome ok, with an end), for replaying the strategies. */
  applies: Apply[];
  /** The consumers' strategy's effects, as the history records them. */
  liveEffects: EffectCounts;
  /** When each message the consumers' strategy held back was released (its apply's end, µs). */
  releasedHeld: number[];
  rebalances: number;
  /** The consumers' rebalance callbacks, in history order (harness/metrics/group-ownership.ts). */
  rebalanceEvents: GroupEvent[];
  marks: { name: string; at: number; detail?: unknown }[];
  /** Split keys: what is out of order per entity (null when keys are not split). */
  entityOrder: EntityOrder | null;
  /** What the handling cost (the result's consumers.costs). */
  costs: ConsumerCosts;
  /** The busiest keys of the measured phase, busiest first (at most 5). */
  topKeys: string[];
  /** Acked writes per key ([sent, lane]), collected only when asked (partition changes). */
  keyWrites: KeyWrites;
}

/**
 * The figures of a run, from its merged history in one pass: latency histograms, per-second
 * series, key and lane skew, and the truth (the final state each key should reach).
 */
export async function measureHistory(file: string, scenario: Scenario, measureStartUs: number, windows: Window[], opts: { keyWrites?: boolean; clocks?: EventClocks | null } = {}): Promise<Measurements> {
  const clocks = opts.clocks ?? null;
  const keyWrites: KeyWrites = new Map();
  const collector = new MetricsCollector({ measureStartUs, windows, settleUs: scenario.run.settleMs * 1000 });
  const sends: { key: string; seq: number; producer: string }[] = [];
  // Definite refusals per message, and re-sends of it: it was never written only when every
  // send of it (each has at most one ack) was refused, as the checker's ack status says.
  const refusals = new Map<string, number>();
  const resent = new Map<string, number>();
  const marks: Measurements['marks'] = [];
  const applies: Apply[] = [];
  const liveEffects = emptyCounts();
  const costs = new ConsumerCostCounter();
  const split = scenario.workload.keys.split;
  const releasedHeld: number[] = [];
  let rebalances = 0;
  const rebalanceEvents: GroupEvent[] = [];
  let sent = 0;
  let lastSendUs = 0;
  let acked = 0;
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    let e: HistoryEvent;
    try {
      e = JSON.parse(line) as HistoryEvent;
    } catch {
      continue; // the checker reports bad lines
    }
    if (clocks) e = clocks.event(e); // other hosts' times on the runner's clock
    collector.add(e);
    if (e.type === 'send' && e.resend !== undefined) {
      // A producer's own re-send of a message already listed: not a send of the schedule.
      const id = `${e.producer}\u0000${e.key}\u0000${e.seq}`;
      resent.set(id, (resent.get(id) ?? 0) + 1);
    } else if (e.type === 'send') {
      sends.push({ key: e.key, seq: e.seq, producer: e.producer });
      if ((e.intended ?? e.at) >= measureStartUs) {
        sent++;
        if (e.at > lastSendUs) lastSendUs = e.at;
      }
    } else if (e.type === 'ack') {
      if (e.ok === false) {
        const id = `${e.producer}\u0000${e.key}\u0000${e.seq}`;
        refusals.set(id, (refusals.get(id) ?? 0) + 1);
      }
      if (e.ok === true && e.at >= measureStartUs) acked++;
      const sentAt = (e as { sent?: number }).sent;
      if (opts.keyWrites && e.ok === true && e.lane != null && sentAt !== undefined) {
        let list = keyWrites.get(e.key);
        if (!list) keyWrites.set(e.key, (list = []));
        list.push([sentAt, e.lane]);
      }
    } else if (e.type === 'rebalance') {
      rebalances++;
      rebalanceEvents.push({ type: e.type, at: e.at, consumer: e.consumer, lanes: e.lanes, phase: e.phase });
    }
    else if (e.type === 'mark') marks.push({ name: e.name, at: e.at, detail: e.detail });
    else if (e.type === 'process') {
      costs.add(e);
      const effect = e.effect;
      // A conflated delivery was dropped before the store: no apply to replay.
      if (effect === 'conflated' || e.outcome !== 'ok' || e.end === undefined || e.key === null || e.seq === null) continue;
      // Split keys: the strategies and the truth work on the entity and its version.
      applies.push({ ...entityOf(e.key, e.seq, split), producer: e.producer, end: e.end, ...(e.stamp !== undefined ? { stampMs: e.stamp } : {}) });
      // Histories before strategies were plug-ins said skipped-stale.
      if (effect) liveEffects[effect === 'skipped-stale' ? 'skipped' : effect]++;
      if (e.held !== undefined) releasedHeld.push(e.end);
    }
  }
  const failed = new Set([...refusals].filter(([id, n]) => n > (resent.get(id) ?? 0)).map(([id]) => id));
  const t = truth(
    scenario.workload.entity,
    sends.map((s) => ({ ...entityOf(s.key, s.seq, split), ok: failed.has(`${s.producer}\u0000${s.key}\u0000${s.seq}`) ? false : undefined })),
  );
  const traffic = collector.traffic();
  const skew = skewReport(traffic.keyCounts, { laneCounts: traffic.keyLaneCounts, configuredKeys: scenario.workload.keys.count });
  marks.sort((a, b) => a.at - b.at);
  const topKeys = [...traffic.keyCounts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5).map(([k]) => k);
  return { latency: collector.latency(), rates: collector.ratesSection(), series: collector.seriesSection(), skew, sent, lastSendUs, acked, truth: t, applies, liveEffects, releasedHeld, rebalances, rebalanceEvents, marks, keyWrites, topKeys, costs: costs.costs(), entityOrder: split ? entityOrder(applies, split) : null };
}

