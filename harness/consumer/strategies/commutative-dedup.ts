/**
 * commutative-dedup: deltas added in any order, with a processed-message record written in
 * the same SQLite transaction as the effect, so a redelivered message
 * is skipped.
 */
import { commutativeStrategy } from './commutative.ts';

export default commutativeStrategy('commutative-dedup', 'deltas added in any order; a processed-message record in the same transaction skips duplicates', true);
