/**
 * The producers' own re-sends (the result's `workload.resends`, in runs with
 * `workload.producers[].resend`): how many sends were re-sends, and how the broker or client
 * answered them. A refused re-send (ok false: a paused Pub/Sub ordering key) was never written;
 * it is not a lost message, since it was never acked. One pass over the history's sends and
 * acks; an ack belongs to the send whose `at` it names as `sent`.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface ResendFigures {
  /** Sends that were re-sends (`resend` on the send event). */
  resent: number;
  /** Distinct messages re-sent at least once. */
  messages: number;
  /** Their answers: written, definitely refused, unknown, none by the end of the run. */
  acked: number;
  refused: number;
  unknown: number;
  unanswered: number;
  /** The refusals' errors, by their first 120 characters, with counts (at most 5). */
  refusals: { error: string; count: number }[];
}

interface Line {
  type: string;
  key: string;
  producer: string;
  seq: number;
  at: number;
  resend?: number;
  ok?: boolean | null;
  sent?: number;
  error?: string;
}

export async function resendFigures(file: string): Promise<ResendFigures> {
  const idOf = (e: Line, at: number) => `${e.producer}\u0000${e.key}\u0000${e.seq}\u0000${at}`;
  const resends = new Set<string>();
  const messages = new Set<string>();
  const answers = new Map<string, Line>();
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (!text.includes('"resend"') && !text.includes('"type":"ack"')) continue;
    let e: Line;
    try {
      e = JSON.parse(text) as Line;
    } catch {
      continue; // the checker reports bad lines
    }
    if (e.type === 'send' && typeof e.resend === 'number') {
      resends.add(idOf(e, e.at));
      messages.add(`${e.producer}\u0000${e.key}\u0000${e.seq}`);
    } else if (e.type === 'ack' && typeof e.sent === 'number') answers.set(idOf(e, e.sent), e);
  }
  const f: ResendFigures = { resent: resends.size, messages: messages.size, acked: 0, refused: 0, unknown: 0, unanswered: 0, refusals: [] };
  const errors = new Map<string, number>();
  for (const id of resends) {
    const a = answers.get(id);
    if (!a) f.unanswered++;
    else if (a.ok === true) f.acked++;
    else if (a.ok === false) {
      f.refused++;
      const error = (a.error ?? '').slice(0, 120);
      errors.set(error, (errors.get(error) ?? 0) + 1);
    } else f.unknown++;
  }
  f.refusals = [...errors].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([error, count]) => ({ error, count }));
  return f;
}
