/**
 * notification: event as notification. The event only says "entity X changed"; the consumer
 * reads the entity's current state from its owner (the service the run starts, harness/owner/)
 * and stores it when it is newer than the stored version. Order stops mattering: a late or
 * repeated notification reads the same current state. The cost is the dependency: one read per
 * event at least, its latency, and, while the owner is slow or down, retries and lag.
 *
 * A read that fails is retried after a backoff (50 ms, doubling, at most 1 s) for up to
 * `maxWaitMs`; then the apply fails (a handler error: the message goes back to the broker).
 */
import type { ConsumerStrategy, Effect } from './contract.ts';
import { rowTable } from './rows.ts';
import { type Program } from '../store/program.ts';
import { emptyCosts, type StrategyCosts } from './costs.ts';
import { sleep } from '../../clock.ts';
import type { EntityState, VersionedState } from '../../workload/entity.ts';

const notification: ConsumerStrategy = {
  name: 'notification',
  description: 'event as notification: read the entity\'s current state from its owner and store it if newer; order stops mattering',
  options: {
    maxWaitMs: { type: 'integer', minimum: 0, default: 5000, description: 'How long one event may retry failed reads before its handling fails, ms. Default 5000.' },
  },
  pure: false,
  scoresVersion: true,
  usesOwner: true,
  open(db, _entity, options, context) {
    const rows = rowTable(db, 'entities_notification');
    const maxWaitMs = Number(options.maxWaitMs ?? 5000);
    /** When each key's last store took effect, inside its transaction (appliedAt). */
    const appliedAt = new Map<string, number>();
    function* storeNewer(key: string, version: number, state: EntityState): Program<Effect> {
      appliedAt.set(key, context?.now() ?? Date.now() * 1000);
      if (((yield* rows.get(key))?.version ?? 0) >= version) return 'skipped';
      yield* rows.put(key, version, state);
      return 'applied';
    }
    const store = (key: string, version: number, state: EntityState) => db.transaction(key, () => storeNewer(key, version, state));
    const costs = emptyCosts();
    const count = (name: string) => (costs.counts[name] = (costs.counts[name] ?? 0) + 1);

    /** The owner's state of key at `seq` or later, reading again after a backoff while it fails. */
    const read = async (key: string, seq: number): Promise<VersionedState> => {
      let retries = 0;
      const noteRetries = () => retries > 0 && (costs.peaks.peakRetriesPerEvent = Math.max(costs.peaks.peakRetriesPerEvent ?? 0, retries));
      if (!context?.fetchOwner) throw new Error('notification needs the owner service (the run starts one for it)');
      const deadline = performance.now() + maxWaitMs;
      for (let attempt = 1; ; attempt++) {
        count('reads');
        try {
          const got = await context.fetchOwner(key);
          // The owner commits before it publishes: behind the event only if something is wrong.
          if (got && got.version >= seq) return noteRetries(), got;
          count('staleReads');
          if (performance.now() >= deadline) throw new Error(`the owner is behind the event (${got?.version ?? 0} < ${seq})`);
        } catch (e) {
          if (performance.now() >= deadline) throw (noteRetries(), e);
        }
        retries++;
        count('retries');
        await sleep(Math.min(1000, 50 * 2 ** (attempt - 1)));
      }
    };

    return {
      *apply({ key, seq }) {
        count('events');
        const got = yield* db.waitFor(read(key, seq));
        return yield* store(key, got.version, got.state);
      },
      appliedAt: (key) => appliedAt.get(key),
      costs: (): StrategyCosts => ({ counts: { ...costs.counts }, peaks: { ...costs.peaks }, histograms: {} }),
      finalStates: () => rows.all(),
    };
  },
};
export default notification;
