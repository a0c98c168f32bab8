import { loadBroker } from '../broker/registry.ts';
import { SendFailure, type OutgoingMessage, type ProducerClient, type SendDone } from '../broker/contract.ts';
import { nowMicros, sleep } from '../clock.ts';
import { HistoryWriter } from '../history/writer.ts';
import { MessagePlan, type PlannedMessage } from '../workload/schedule.ts';
import { encodeMessage } from '../workload/codec.ts';
import { emptyStats, type FromWorker, type Inbox, type WorkerInit, type WorkerStats } from '../workers/protocol.ts';
import { eventAt } from '../workload/entity.ts';
import { loopLagMeter } from '../workers/loop-lag.ts';
import { WorkerFaults } from '../faults/worker-hooks.ts';
import { ResendPolicy, type SendWatch } from './resend.ts';
import { DEFAULT_PAYLOAD, serviceHeaders, servicePayload } from '../service/message.ts';

/**
 * A producer process: walks its share of the seeded message plan and sends each message at
 * its intended time (start + i/rate), recording a send event before the call and an ack event
 * when the broker answers (ok true), definitely refuses (ok false) or leaves it unknown (null).
 */
export async function runProducer(init: WorkerInit, inbox: Inbox, send: (m: FromWorker) => void): Promise<void> {
  const me = init.producer!;
  const broker = await loadBroker(init.brokerKind);
  const history = new HistoryWriter(init.historyFile);
  const log = (line: string) => send({ type: 'log', line });
  const client: ProducerClient = await broker.producer(init.endpoint, init.settings, init.names, { id: init.id, log, maxInFlight: init.scenario.workload.maxInFlight });
  const lag = loopLagMeter();
  const stats: WorkerStats = emptyStats();

  let startUs: number | undefined;
  // The service's wall clock, stamped into every payload; a clock-skew fault moves it. The stamp
  // is the wall-clock millisecond at which the event happened (its intended instant in the
  // open-loop schedule), as a service stamps an event when it occurs: stamping at the send call
  // would give every message of a catch-up burst the same millisecond, ties made by the
  // harness's own backlog rather than by the workload.
  let clockOffsetMs = 0;
  const wallMinusRunMs = Date.now() - nowMicros() / 1000; // read once: stamps keep the run clock's order
  const wallAt = (runUs: number) => Math.floor(runUs / 1000 + wallMinusRunMs) + clockOffsetMs;
  let stopping = false;
  let wake: (() => void) | undefined;
  const faults = WorkerFaults.producer({
    id: init.id,
    log,
    client,
    mark: (name, detail) => history.write({ type: 'mark', at: nowMicros(), name, detail }),
    producer: { name: me.name, index: me.index },
    setClockOffset: (ms) => (clockOffsetMs = ms),
  }, undefined, init.scenario.faults.map((f) => f.kind));
  inbox((m) => {
    if (m.type === 'start') startUs = m.startUs;
    if (m.type === 'stop') stopping = true;
    faults.receive(m);
    wake?.();
  });
  const report = () => send({ type: 'stats', stats: { ...stats, loopLagMs: lag() } });
  const timer = setInterval(report, 500);
  send({ type: 'ready' });
  while (startUs === undefined && !stopping) await new Promise<void>((r) => (wake = r));

  const scenario = init.scenario;
  // On a destination runs share (a topic made beforehand), every payload names its run.
  const run = init.endpoint.runTagged === true ? init.names.runId : undefined;
  const plan = new MessagePlan({ seed: scenario.seed, workload: scenario.workload, poison: scenario.consumers.poison });
  const unlimited = scenario.workload.rate.kind === 'unlimited';
  const t0 = startUs ?? nowMicros();
  const endUs = t0 + plan.endUs;
  let drainWaiters: (() => void)[] = [];

  // A full client buffer holds the schedule back until a tenth of it has drained: waking the
  // loop on every ack would send one message per ack, a promise round trip each.
  const maxInFlight = scenario.workload.maxInFlight;
  const lowWater = maxInFlight - Math.max(1, Math.floor(maxInFlight / 10));
  const settled = () => {
    stats.inFlight--;
    if (drainWaiters.length > 0 && stats.inFlight <= lowWater) drainWaiters.splice(0).forEach((w) => w());
  };
  // The producer's own re-sends (workload.producers[].resend), when the scenario asks for them.
  const resends = new ResendPolicy(scenario.workload.producers.find((p) => p.name === me.name)?.resend);
  // A consumer under test (consumers.service) reads the body its team expects, and convoy's fields in headers.
  const service = scenario.consumers.service;
  const template = service?.payload ?? DEFAULT_PAYLOAD;
  const runId = init.names.runId;
  // The client's callback send where it has one (no promise per message), else its send().
  const post: (message: OutgoingMessage, done: SendDone) => void = client.sendCallback
    ? client.sendCallback.bind(client)
    : (message, done) => void client.send(message).then((ack) => done(null, ack), (err: unknown) => done(err ?? new Error('send failed')));
  /**
   * The callback that records a send's answer. Made here, not inside sendOne, so that it holds
   * only what it needs for the send's time in flight (not the payload, which the client copied).
   */
  const answer = (m: PlannedMessage, at: number, watch: SendWatch | undefined): SendDone => (err, ack) => {
    if (!err) {
      stats.acked++;
      history.write({ type: 'ack', key: m.key, producer: m.producer, seq: m.seq, at: nowMicros(), ok: true, lane: ack?.lane, offset: ack?.offset, sent: at });
      watch?.answered('ok');
    } else {
      const definite = err instanceof SendFailure && err.definite;
      if (definite) stats.failed++;
      else stats.unknown++;
      history.write({ type: 'ack', key: m.key, producer: m.producer, seq: m.seq, at: nowMicros(), ok: definite ? false : null, error: (err as Error).message, sent: at });
      watch?.answered(definite ? 'refused' : 'unknown');
    }
    settled();
  };
  const watchResend = (m: PlannedMessage, intended: number, attempt: number, payload: Buffer) => resends.watch(attempt, () => sendOne(m, intended, attempt + 1, payload));
  const makePayload = (m: PlannedMessage, intended: number): Buffer =>
    (service ? servicePayload(template, { run: runId, producer: m.producer, key: m.key, seq: m.seq }) : undefined) ??
    encodeMessage({ producer: m.producer, key: m.key, seq: m.seq, intendedUs: intended, poison: m.poison, entity: scenario.workload.entity.kind, event: eventAt(scenario.workload.entity, m.entity, m.version), stampMs: wallAt(intended), run }, m.size);
  /** Sends m (its `attempt`-th re-send; 0: the first send, with the payload made then). */
  const sendOne = (m: PlannedMessage, intended: number, attempt = 0, made?: Buffer) => {
    const payload = made ?? makePayload(m, intended);
    const at = nowMicros();
    history.write({ type: 'send', key: m.key, producer: m.producer, seq: m.seq, at, intended, process: init.id, size: payload.length, entity: m.entity === m.key ? undefined : m.entity, resend: attempt > 0 ? attempt : undefined });
    if (attempt === 0) {
      stats.sent++;
      stats.behindMs = (at - intended) / 1000;
    }
    stats.inFlight++;
    const watch = resends.active ? watchResend(m, intended, attempt, payload) : undefined;
    const headers = service ? serviceHeaders({ run: runId, producer: m.producer, key: m.key, seq: m.seq }) : undefined;
    post(headers ? { key: m.key, payload, headers } : { key: m.key, payload }, answer(m, at, watch));
  };

  const it = plan.messages({ producer: me.name, process: me.index });
  let next = it.next();
  while (!next.done && !stopping) {
    const m = next.value;
    const now = nowMicros();
    const intended = m.intendedOffsetUs === null ? now : t0 + m.intendedOffsetUs;
    if (unlimited && now >= endUs) break;
    const wait = (intended - now) / 1000;
    if (wait >= 1) {
      await sleep(wait);
      continue;
    }
    // Open loop: acks never decide when to send; only a full client buffer holds the
    // schedule back, and that shows up honestly as publish delay.
    if (stats.inFlight >= maxInFlight) {
      await new Promise<void>((r) => drainWaiters.push(r));
      continue;
    }
    sendOne(m, intended);
    next = it.next();
    // Yield now and then so acks, the runner's messages and timers run even when far behind schedule.
    if (stats.sent % 256 === 0) await new Promise<void>((r) => setImmediate(r));
  }

  // Wait (bounded) for the last acks, then report and wait to be stopped.
  const deadline = Date.now() + 60_000;
  while (stats.inFlight > 0 && Date.now() < deadline && !stopping) await sleep(50);
  stats.finished = true;
  report();
  while (!stopping) await new Promise<void>((r) => (wake = r));
  resends.stop();
  clearInterval(timer);
  faults.endAll();
  await client.close().catch(() => {});
  history.close();
  send({ type: 'stopped', stats });
}
