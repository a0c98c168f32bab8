/** What the harness itself needs, beside the brokers' own requirements (declared in their modules). */
import { CHROMIUM, GO, type Need } from '../runtime/requirements.ts';

/** A need with the module or command that has it, for doctor's "needed by" column. */
export interface NeedBy extends Need {
  by: string;
}

/** Every local run: each client connection goes through a private Toxiproxy, built with Go. */
export const HARNESS_NEEDS: NeedBy[] = [{ requirement: GO, purpose: 'to build Toxiproxy (every local run)', by: 'harness' }];

/** `convoy test`: the report tests render pages in Chromium. */
export const TEST_NEEDS: NeedBy[] = [{ requirement: CHROMIUM, purpose: 'for the report tests', by: 'convoy test' }];
