/**
 * `convoy parked list <run>` and `convoy parked replay <run> [--key K]`: the park-key poison
 * policy's tools (the parked-keys table and its replay), working on a finished run's
 * folder. The lot is the `parked` table of the run's store file (harness/consumer/parking-lot.ts).
 *
 * replay applies a key's parked messages, in version order, through the consumers' strategy
 * into the run's store (state.sqlite: the consumers' own store, kept in the run folder), unparks
 * the key, and prints the final-state check of the replayed keys against the truth from the
 * run's history. Against an external broker's topic it would do the same with the messages it
 * re-reads from wherever they were parked: it writes to the consumers' store only, never to
 * the broker (the parked messages were acknowledged there, and nothing is republished), and it
 * does not see messages that arrived after the run, nor replay keys another tool unparked.
 */
import type { Command } from 'commander';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../errors.ts';
import { ParkingLot } from '../../consumer/parking-lot.ts';
import { compareWithTruth, openDatabase } from '../../consumer/entity-store.ts';
import { openStrategyStore } from '../../consumer/strategies/open.ts';
import { truth, type TruthMessage } from '../../workload/entity.ts';
import type { Scenario } from '../../spec/types.ts';
import type { HistoryEvent } from '../../history/events.ts';

export function register(program: Command): void {
  const parked = program.command('parked').description("a run's parked keys (poison policy park-key): list them, or replay them into the run's consumer store");
  parked
    .command('list')
    .description('each parked key, why it was parked, and how many messages are set aside')
    .argument('<run>', 'a run folder, e.g. results/<run-id>/')
    .action((dir: string) => {
      const run = runFolder(dir);
      process.stdout.write(listParked(run));
    });
  parked
    .command('replay')
    .description("apply a key's parked messages in order to the run's consumer store, unpark the key, and check its final state")
    .argument('<run>', 'a run folder, e.g. results/<run-id>/')
    .option('--key <key>', 'only this key (default: every parked key)')
    .action(async (dir: string, opts: { key?: string }) => {
      const run = runFolder(dir);
      const out = await replayParked(run, opts.key);
      process.stdout.write(out.text);
      if (out.wrong > 0) process.exitCode = 1;
    });
}

/** The run folder (absolute), checked: its result.json and state.sqlite. */
export function runFolder(dir: string): string {
  let runDir = resolve(dir);
  if (existsSync(runDir) && statSync(runDir).isFile()) runDir = resolve(runDir, '..');
  for (const f of ['result.json', 'state.sqlite', 'history.jsonl']) {
    if (!existsSync(join(runDir, f))) throw new InputError(`${dir}: no ${f} here (expected a run folder such as results/<run-id>/)`);
  }
  return runDir;
}

function withLot<T>(runDir: string, fn: (lot: ParkingLot) => T): T {
  const db = openDatabase(join(runDir, 'state.sqlite'));
  try {
    return fn(new ParkingLot(db));
  } finally {
    db.close();
  }
}

export function listParked(runDir: string): string {
  const keys = withLot(runDir, (lot) => lot.keys());
  if (keys.length === 0) return 'no parked keys\n';
  const rows = [['key', 'messages', 'seqs', 'why'], ...keys.map((k) => [k.key, String(k.messages), `${k.firstSeq}..${k.lastSeq}`, k.why])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}

export async function replayParked(runDir: string, only?: string): Promise<{ text: string; wrong: number; replayed: number }> {
  const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as { scenario?: Scenario };
  const scenario = result.scenario;
  if (!scenario?.consumers || !scenario.workload) throw new InputError(`${join(runDir, 'result.json')}: no resolved scenario in it`);
  const batches = withLot(runDir, (lot) => {
    const keys = lot.keys().map((k) => k.key).filter((k) => only === undefined || k === only);
    if (only !== undefined && keys.length === 0) throw new InputError(`--key: ${only} is not parked in ${runDir}`);
    return keys.map((key) => ({ key, messages: lot.messages(key) }));
  });
  if (batches.length === 0) return { text: 'no parked keys\n', wrong: 0, replayed: 0 };
  const store = await openStrategyStore(join(runDir, 'state.sqlite'), scenario);
  const lines: string[] = [];
  let replayed = 0;
  const keys = new Set(batches.map((b) => b.key));
  const all = truth(scenario.workload.entity, sendsOf(join(runDir, 'history.jsonl'), keys));
  const checkKeys = () => compareWithTruth(new Map([...store.finalStates()].filter(([k]) => keys.has(k))), all, [], 10, store.strategy.scoresVersion);
  try {
    const before = checkKeys();
    lines.push(`before replay (${store.strategy.name}): ${before.right} right, ${before.wrong} wrong of ${keys.size} parked key(s)`);
    for (const { key, messages } of batches) {
      const effects: Record<string, number> = {};
      for (const m of messages) {
        const e = await store.apply({ key: m.key, producer: m.producer, seq: m.seq });
        if (e === 'held') throw new Error(`strategy ${store.strategy.name} held a replayed message: replay needs a strategy that applies at once`);
        effects[e] = (effects[e] ?? 0) + 1;
        replayed++;
      }
      withLot(runDir, (lot) => lot.unpark(key));
      lines.push(`${key}: replayed ${messages.length} message(s) (${Object.entries(effects).map(([k, v]) => `${v} ${k}`).join(', ')}), unparked`);
    }
    // The final-state check of the replayed keys, against the truth from the run's history.
    const check = checkKeys();
    for (const w of check.wrongKeys) lines.push(`${w.key}: still wrong in ${w.fields.join(', ')}`);
    lines.push(`final state of the replayed keys (${store.strategy.name}): ${check.right} right, ${check.wrong} wrong`);
    return { text: lines.join('\n') + '\n', wrong: check.wrong, replayed };
  } finally {
    store.close();
  }
}

/** The sends of the given keys, with their ack outcome (a definitely refused send is not in the truth). */
function sendsOf(historyFile: string, keys: Set<string>): TruthMessage[] {
  const sends = new Map<string, TruthMessage>();
  for (const line of readFileSync(historyFile, 'utf8').split('\n')) {
    if (!line) continue;
    let e: HistoryEvent;
    try {
      e = JSON.parse(line) as HistoryEvent;
    } catch {
      continue;
    }
    if ((e.type !== 'send' && e.type !== 'ack') || !keys.has(e.key)) continue;
    const id = `${e.producer}\u0000${e.key}\u0000${e.seq}`;
    const m = sends.get(id) ?? { key: e.key, seq: e.seq, producer: e.producer };
    if (e.type === 'ack' && e.ok === false && m.ok !== true) m.ok = false;
    if (e.type === 'ack' && e.ok === true) m.ok = true;
    sends.set(id, m);
  }
  return [...sends.values()];
}
