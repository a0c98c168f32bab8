/**
 * naive: apply whatever arrives, in the order it arrives. A whole-state message replaces the
 * stored state (an unconditional upsert); a change is folded into it. Right only when the
 * broker delivered each key's messages once and in order.
 */
import type { ConsumerStrategy } from './contract.ts';
import { rowTable } from './rows.ts';
import { mapSteps } from '../store/program.ts';
import { applyChange } from '../../workload/changes.ts';
import { eventContent } from '../../workload/entity.ts';

const applied = () => 'applied' as const;

const naive: ConsumerStrategy = {
  name: 'naive',
  description: 'apply whatever arrives, in the order it arrives',
  pure: true,
  scoresVersion: true,
  open(db, entity) {
    const rows = rowTable(db, 'entities_naive');
    function* change(key: string, seq: number) {
      yield* rows.put(key, seq, applyChange((yield* rows.get(key))?.state, eventContent(entity, key, seq)));
      return 'applied' as const;
    }
    return {
      apply({ key, seq }) {
        // A whole state needs no read: one statement, no transaction.
        if (entity.events === 'state') return mapSteps(rows.put(key, seq, eventContent(entity, key, seq).set!), applied);
        return db.transaction(key, () => change(key, seq));
      },
      finalStates: () => rows.all(),
    };
  },
};
export default naive;
