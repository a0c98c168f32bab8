import type { FaultKind, FaultScope } from './contract.ts';
import { endInWorker, startInWorker } from './contract.ts';
import type { WorkerHandle } from '../workers/handle.ts';

/** The largest step either way: an hour, beyond which no NTP-disciplined clock plausibly jumps. */
export const MAX_SKEW_MS = 3_600_000;

/**
 * One producer process's wall clock steps forward or back by `offsetMs` for the window: the
 * service timestamp it stamps into each payload moves (what lww-timestamp orders by), while the
 * harness's own send, ack and process times stay on the run clock, so the checker's verdicts
 * are untouched. The step ends with the window.
 */
const clockSkew: FaultKind = {
  kind: 'clock-skew',
  destructive: false,
  schema: {
    type: 'object',
    properties: {
      producer: { type: 'string', description: 'The logical producer (workload.producers[].name).' },
      process: { type: 'integer', minimum: 1, description: 'Which of its processes, from 1.' },
      offsetMs: { type: 'integer', minimum: -MAX_SKEW_MS, maximum: MAX_SKEW_MS, description: 'How far its clock steps, ms: negative back, positive forward; at most an hour either way.' },
    },
    required: ['producer', 'process', 'offsetMs'],
  },
  doc: {
    summary: 'One producer process\'s wall clock steps by `offsetMs` for the window: the service timestamp in its payloads moves (what lww-timestamp orders by); the run clock, and so the checker, is untouched.',
    example: '{ name: skew, kind: clock-skew, producer: producer, process: 1, offsetMs: -2000, atMs: 3s, durationMs: 4s }',
  },
  check: (spec, scope) => checkProducerProcess(scope, spec.producer, spec.process),
  async start(spec, ctx) {
    const w = producerProcess(ctx.producers(), String(spec.producer), Number(spec.process));
    const offsetMs = Number(spec.offsetMs);
    startInWorker(w, 'clock-skew', { offsetMs });
    let ended = false;
    return {
      evidence: { producer: spec.producer, process: spec.process, worker: w.id, pid: w.pid, offsetMs, wallClockMs: Date.now() },
      async end() {
        if (ended) return undefined;
        ended = true;
        endInWorker(w, 'clock-skew');
        return { worker: w.id, offsetMs: 0 };
      },
    };
  },
  worker: {
    producer(args, side) {
      const offsetMs = Number(args.offsetMs);
      side.setClockOffset(offsetMs);
      side.mark('clock-skew', { process: side.id, offsetMs });
      return {
        end() {
          side.setClockOffset(0);
          side.mark('clock-skew-end', { process: side.id });
        },
      };
    },
  },
};
export default clockSkew;

/** `<path>.producer` / `<path>.process` naming what the scenario's producers lack. */
function checkProducerProcess(scope: FaultScope, producer: unknown, process: unknown): string[] {
  const processes = scope.producerProcesses[String(producer)];
  if (processes === undefined) {
    return [`${scope.path}.producer: no producer ${JSON.stringify(producer)} in this scenario; expected one of ${Object.keys(scope.producerProcesses).join(', ')}`];
  }
  if (typeof process !== 'number' || process > processes) {
    return [`${scope.path}.process: producer ${JSON.stringify(producer)} has ${processes} ${processes === 1 ? 'process' : 'processes'} (workload.producers[].processes); expected 1..${processes}, got ${JSON.stringify(process)}`];
  }
  return [];
}

function producerProcess(all: WorkerHandle[], name: string, process: number): WorkerHandle {
  const w = all.find((p) => p.init.producer?.name === name && p.init.producer.index === process - 1);
  if (!w) throw new Error(`no process ${process} of producer "${name}" (have ${all.map((p) => p.id).join(', ')})`);
  return w;
}
