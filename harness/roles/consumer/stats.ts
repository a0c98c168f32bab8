import { nowMicros } from '../../clock.ts';
import type { Scheduler } from '../../consumer/concurrency/contract.ts';
import { COSTS_MARK, type StrategyCosts } from '../../consumer/strategies/costs.ts';
import { encode } from '../../metrics/histogram.ts';
import { cpuMeter } from '../../workers/cpu-meter.ts';
import { loopLagMeter } from '../../workers/loop-lag.ts';
import type { ConsumerContext } from './context.ts';
import type { Renewals } from './gate.ts';
import type { Holding } from './hold.ts';

/**
 * The consumer's figures: its stats to the runner every 500 ms (with its loop lag and CPU), and
 * at the end the strategy's costs as a history mark (COSTS_MARK): counts, peaks (with the
 * process's peak memory), histograms, the owner's reads, cap stalls and renewals.
 */
export function statsReporter(ctx: ConsumerContext, scheduler: Scheduler, holding: Holding, renewals: Renewals) {
  const { stats, store, send } = ctx;
  const lag = loopLagMeter();
  const cpu = cpuMeter();
  let peakRssBytes = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peakRssBytes = Math.max(peakRssBytes, process.memoryUsage().rss);
    stats.inFlight = scheduler.inFlight;
    stats.storeWrites = store.writes();
    send({ type: 'stats', stats: { ...stats, loopLagMs: lag(), cpuPercent: cpu() } });
  }, 500);
  return {
    stop: () => clearInterval(timer),
    /** Writes the strategy's costs mark; held messages still unsettled go back to the broker with the client. */
    writeCosts() {
      const costs: StrategyCosts = store.costs();
      const peaks = { ...costs.peaks, peakRssBytes: Math.max(peakRssBytes, process.memoryUsage().rss) };
      // A holding strategy's renewals count even when none was made (the broker's client renews on its own, or has no lock).
      const renewed = store.holds ? { renewals: renewals.ok, renewalFailures: renewals.failed } : {};
      const owner = ctx.ownerReads;
      const readCounts = owner ? { ownerReads: owner.reads, ownerReadErrors: owner.errors } : {};
      const counts = { ...costs.counts, ...readCounts, ...holding.counts(), ...renewed };
      const histograms = owner && owner.histogram.totalCount > 0 ? { ...costs.histograms, ownerRead: encode(owner.histogram) } : costs.histograms;
      ctx.history.write({ type: 'mark', at: nowMicros(), name: COSTS_MARK, detail: { consumer: ctx.init.id, strategy: store.strategy.name, counts, peaks, histograms } });
    },
  };
}
