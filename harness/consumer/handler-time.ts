/**
 * Handler time: how long a consumer's handler takes for one message, in milliseconds, drawn
 * from the scenario's distribution with a seeded stream (give each consumer its own fork).
 */
import type { ConsumerSpec, TimeDistribution } from '../spec/types.ts';
import type { Rng } from '../workload/rng.ts';

export function handlerTimeSampler(dist: TimeDistribution, rng: Rng): () => number {
  switch (dist.kind) {
    case 'constant': {
      const ms = dist.ms;
      return () => ms;
    }
    case 'uniform': {
      const { minMs, maxMs } = dist;
      return () => rng.uniform(minMs, maxMs);
    }
    case 'exponential': {
      const mean = dist.meanMs;
      return () => (mean > 0 ? rng.exponential(mean) : 0);
    }
  }
}

/** The distribution for consumer `name` (c1, c2...): its override, else the group's. */
export function handlerFor(spec: Pick<ConsumerSpec, 'handler' | 'overrides'>, name: string): TimeDistribution {
  return spec.overrides?.[name]?.handler ?? spec.handler;
}

/** The distribution's mean, for reports and capacity estimates. */
export function meanMs(dist: TimeDistribution): number {
  switch (dist.kind) {
    case 'constant':
      return dist.ms;
    case 'uniform':
      return (dist.minMs + dist.maxMs) / 2;
    case 'exponential':
      return dist.meanMs;
  }
}
