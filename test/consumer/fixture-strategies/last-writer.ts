/**
 * A strategy kept outside the tree, for strategies.test.ts: found through
 * CONVOY_STRATEGY_DIRS. It keeps the highest version per key seen so far and the state of the
 * last message applied, so it is right only where versions never go back: a test can tell.
 */
import type { ConsumerStrategy } from '../../../harness/consumer/strategies/contract.ts';
import { rowTable } from '../../../harness/consumer/strategies/rows.ts';
import { stateAt } from '../../../harness/workload/entity.ts';

const lastWriter: ConsumerStrategy = {
  name: 'last-writer',
  description: 'a test fixture: the last message wins, version the highest seen',
  options: { label: { type: 'string', description: 'Ignored; shows options reach the schema.' } },
  pure: true,
  scoresVersion: false,
  unfit: (entity) => (entity.events === 'state' ? undefined : 'needs whole-state events'),
  open(db, entity) {
    const rows = rowTable(db, 'entities_last_writer');
    function* keepHighest(key: string, seq: number) {
      yield* rows.put(key, Math.max(seq, (yield* rows.get(key))?.version ?? 0), stateAt(entity, key, seq));
    }
    return {
      *apply({ key, seq }) {
        yield* db.transaction(key, () => keepHighest(key, seq));
        return 'applied';
      },
      finalStates: () => rows.all(),
    };
  },
};
export default lastWriter;
