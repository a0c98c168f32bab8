/** What the harness itself needs, beside the brokers' own requirements (declared in their modules). */
import { CHROMIUM, POSTGRESQL, type Need } from '../runtime/requirements.ts';

/** A need with the module or command that has it, for doctor's "needed by" column. */
export interface NeedBy extends Need {
  by: string;
}

/** `convoy test`: the report tests render pages in Chromium; the store's tests start a PostgreSQL server. */
export const TEST_NEEDS: NeedBy[] = [
  { requirement: CHROMIUM, purpose: 'for the report tests', by: 'convoy test' },
  { requirement: POSTGRESQL, purpose: "for the entity store's PostgreSQL tests", by: 'convoy test' },
];
